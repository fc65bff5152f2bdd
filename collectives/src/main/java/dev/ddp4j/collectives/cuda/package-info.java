/**
 * Internal to ddp4j (the cuda backend: its process group, kernels and routes): not part of its API,
 * which is {@code ddp-api} ({@code dev.ddp4j}) and {@code DdpModel}; it may change in any release.
 */
@ApiStatus.Internal
package dev.ddp4j.collectives.cuda;

import org.jetbrains.annotations.ApiStatus;
