/**
 * Internal to ddp4j (the one logging facade every module logs through: DDP4J_DEBUG's gate, SLF4J
 * where bound, else stderr): not part of its API, which is {@code ddp-api} ({@code dev.ddp4j}) and
 * {@code DdpModel}; it may change in any release.
 */
@ApiStatus.Internal
package dev.ddp4j.collectives.log;

import org.jetbrains.annotations.ApiStatus;
