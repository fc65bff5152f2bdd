/**
 * Internal to ddp4j (what both GPU backends, cuda and nccl, stand on: the CUDA driver calls and
 * module loading, events, the {@code Work} that completes through them, device buffer checks): not
 * part of its API, which is {@code ddp-api} ({@code dev.ddp4j}) and {@code DdpModel}; it may change
 * in any release.
 */
@ApiStatus.Internal
package dev.ddp4j.collectives.gpu;

import org.jetbrains.annotations.ApiStatus;
