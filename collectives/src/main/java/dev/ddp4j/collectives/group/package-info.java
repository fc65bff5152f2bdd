/**
 * Internal to ddp4j (subgroups of a process group: their collective agreement on members and their
 * lifetime under the parent, for every backend): not part of its API, which is {@code ddp-api}
 * ({@code dev.ddp4j}) and {@code DdpModel}; it may change in any release.
 */
@ApiStatus.Internal
package dev.ddp4j.collectives.group;

import org.jetbrains.annotations.ApiStatus;
