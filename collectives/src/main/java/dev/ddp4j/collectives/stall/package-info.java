/**
 * Internal to ddp4j (the stall inspector): not part of its API, which is {@code ddp-api} ({@code
 * dev.ddp4j}) and {@code DdpModel}; it may change in any release.
 */
@ApiStatus.Internal
package dev.ddp4j.collectives.stall;

import org.jetbrains.annotations.ApiStatus;
