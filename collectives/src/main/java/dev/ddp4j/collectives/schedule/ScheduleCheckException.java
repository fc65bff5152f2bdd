package dev.ddp4j.collectives.schedule;

import dev.ddp4j.DdpException;

/**
 * A schedule is wrong: it deadlocks, leaves a message unreceived, or ends with the wrong data
 * somewhere.
 */
public class ScheduleCheckException extends DdpException {
  private static final long serialVersionUID = 1L;

  public ScheduleCheckException(String message) {
    super(message);
  }
}
