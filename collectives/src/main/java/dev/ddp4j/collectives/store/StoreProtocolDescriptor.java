package dev.ddp4j.collectives.store;

/**
 * Layout of the TCP store's wire protocol: length-prefixed binary frames, big-endian.
 *
 * <pre>
 * Every frame (both directions):
 *
 *  0               4        5                 9
 *  +---------------+--------+-----------------+--------------------------------+
 *  | length int32  | code u8| request id int32| body (length - 5 bytes)        |
 *  +---------------+--------+-----------------+--------------------------------+
 *  length counts the bytes after itself: 5 <= length <= maxFrameBytes.
 *  client -> server: code is the operation (OP_*); server -> client: code is a status (STATUS_*),
 *  and the request id is the one of the request it answers (0 for the handshake).
 *
 * Body fields, in the order each operation lists them:
 *  string : +-------------+----------------------+     bytes : +-------------+-------------+
 *           | n int32     | n bytes of UTF-8     |             | n int32     | n bytes     |
 *           +-------------+----------------------+             +-------------+-------------+
 *  keys   : +-------------+--------+--------+---             long: int64, bool: u8 (0 or 1)
 *           | n int32     | string | string | ... n strings
 *           +-------------+--------+--------+---
 *
 * Handshake (mutual challenge-response, see StoreAuth; the secret never crosses the wire):
 *  server: STATUS_CHALLENGE id 0  [version int32][Ns: 32 bytes]
 *  client: OP_AUTH          id 0  [client id long][Nc bytes (32)][client proof bytes]
 *  server: STATUS_OK        id 0  [server proof bytes], or STATUS_ERROR id 0 [message string] and
 *          closes the connection. The client checks the server proof before any request.
 *  Any other operation before a successful OP_AUTH is answered STATUS_ERROR and the connection
 *  closed; so is a frame longer than 256 bytes before it, or no OP_AUTH within the deadline.
 *
 * Operations (request body -> OK reply body):
 *  OP_SET         key string, value bytes           -> (empty)
 *  OP_GET         key string, timeoutMs long        -> value bytes        | STATUS_TIMEOUT keys
 *  OP_ADD         key string, delta long            -> new value long
 *  OP_COMPARE_SET key string, expected bytes,
 *                 desired bytes                     -> value after bytes
 *  OP_WAIT        keys, timeoutMs long              -> (empty)            | STATUS_TIMEOUT keys
 *  OP_CHECK       keys                              -> all present bool
 *  OP_DELETE      key string                        -> existed bool
 *  OP_NUM_KEYS    (empty)                           -> count long
 *  OP_MULTI_GET   keys, timeoutMs long              -> n int32, n bytes   | STATUS_TIMEOUT keys
 *  OP_MULTI_SET   n int32, n x (key string, value bytes) -> (empty)
 *  OP_APPEND      key string, value bytes           -> (empty)
 *  OP_BARRIER     name string, rank int32,
 *                 worldSize int32, timeoutMs long   -> (empty)            | STATUS_TIMEOUT ranks
 *  OP_BARRIER is StoreBarrier's set, add and wait in one round trip, on the same keys: the server
 *  marks the rank arrived and bumps the count (once per client and request id), the arrival that
 *  completes the count sets the release key, and the reply comes when that key exists. Its
 *  STATUS_TIMEOUT carries the ranks that never arrived: n int32, n x rank int32.
 *  Otherwise STATUS_TIMEOUT carries the keys still missing; STATUS_ERROR carries a message string, and after a
 *  malformed or oversized frame the server closes that connection (it keeps serving the others).
 * </pre>
 *
 * <p>A client retrying a request after a lost connection reuses its request id; the server answers
 * a repeated OP_ADD or OP_APPEND from the same client id with the cached reply instead of applying
 * it twice.
 */
public final class StoreProtocolDescriptor {

  private StoreProtocolDescriptor() {}

  public static final int VERSION = 3;
  public static final int LENGTH_FIELD_BYTES = 4;
  public static final int HEADER_BYTES = 5;
  public static final int NONCE_BYTES = 32;
  public static final int DEFAULT_MAX_FRAME_BYTES = 16 * 1024 * 1024;

  public static final byte OP_AUTH = 1;
  public static final byte OP_SET = 2;
  public static final byte OP_GET = 3;
  public static final byte OP_ADD = 4;
  public static final byte OP_COMPARE_SET = 5;
  public static final byte OP_WAIT = 6;
  public static final byte OP_CHECK = 7;
  public static final byte OP_DELETE = 8;
  public static final byte OP_NUM_KEYS = 9;
  public static final byte OP_MULTI_GET = 10;
  public static final byte OP_MULTI_SET = 11;
  public static final byte OP_APPEND = 12;
  public static final byte OP_BARRIER = 13;

  public static final byte STATUS_OK = 0;
  public static final byte STATUS_ERROR = 1;
  public static final byte STATUS_TIMEOUT = 2;
  public static final byte STATUS_CHALLENGE = 3;

  /** A readable name for an operation code, for error messages. */
  public static String opName(int op) {
    switch (op) {
      case OP_AUTH:
        return "auth";
      case OP_SET:
        return "set";
      case OP_GET:
        return "get";
      case OP_ADD:
        return "add";
      case OP_COMPARE_SET:
        return "compareSet";
      case OP_WAIT:
        return "wait";
      case OP_CHECK:
        return "check";
      case OP_DELETE:
        return "delete";
      case OP_NUM_KEYS:
        return "numKeys";
      case OP_MULTI_GET:
        return "multiGet";
      case OP_MULTI_SET:
        return "multiSet";
      case OP_APPEND:
        return "append";
      case OP_BARRIER:
        return "barrier";
      default:
        return "unknown op " + op;
    }
  }
}
