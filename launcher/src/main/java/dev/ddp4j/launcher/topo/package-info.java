/**
 * Internal to ddp4j (launcher.jar topo): not part of its API, which is {@code ddp-api} ({@code
 * dev.ddp4j}) and {@code DdpModel}; it may change in any release.
 */
@ApiStatus.Internal
package dev.ddp4j.launcher.topo;

import org.jetbrains.annotations.ApiStatus;
