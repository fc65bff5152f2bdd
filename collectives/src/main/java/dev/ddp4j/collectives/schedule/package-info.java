/**
 * Internal to ddp4j (plans compiled into per-rank schedules): not part of its API, which is {@code
 * ddp-api} ({@code dev.ddp4j}) and {@code DdpModel}; it may change in any release.
 */
@ApiStatus.Internal
package dev.ddp4j.collectives.schedule;

import org.jetbrains.annotations.ApiStatus;
