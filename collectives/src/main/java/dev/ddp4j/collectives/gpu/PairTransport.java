package dev.ddp4j.collectives.gpu;

import dev.ddp4j.DeviceBuffer;
import jcuda.driver.CUstream;

/**
 * How a device group moves one point-to-point message's bytes between two ranks ({@link
 * PointToPoint} numbers, checks and orders the messages): the cuda backend over its IPC mailbox
 * with the copy engines, the nccl backend with ncclSend/ncclRecv. Called on the lane's own thread
 * with the group's context current, in the lane's issue order; may block that thread (a first
 * message may have to meet its peer) but must not wait on the GPU.
 */
public interface PairTransport {

  /** Queues sending {@code buffer} to {@code peer} on {@code stream}. */
  void send(DeviceBuffer buffer, int peer, CUstream stream);

  /** Queues receiving {@code buffer} from {@code peer} on {@code stream}. */
  void receive(DeviceBuffer buffer, int peer, CUstream stream);
}
