/**
 * Internal to ddp4j (the cpu backend: its process group and executor over shared memory and
 * sockets): not part of its API, which is {@code ddp-api} ({@code dev.ddp4j}) and {@code DdpModel};
 * it may change in any release.
 */
@ApiStatus.Internal
package dev.ddp4j.collectives.cpu;

import org.jetbrains.annotations.ApiStatus;
