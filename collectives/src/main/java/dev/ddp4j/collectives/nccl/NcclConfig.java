package dev.ddp4j.collectives.nccl;

import com.sun.jna.Pointer;
import com.sun.jna.Structure;

/**
 * The first fields of nccl.h's {@code ncclConfig_t}, as NCCL 2.14 defined it:
 *
 * <pre>
 *  offset  field            C type          value set here
 *       0  size             size_t          40 (the bytes NCCL may read)
 *       8  magic            unsigned int    NCCL_API_MAGIC 0xcafebeef
 *      12  version          unsigned int    21400 (NCCL_VERSION(2,14,0))
 *      16  blocking         int             0: calls return ncclInProgress, never block
 *      20  cgaClusterSize   int             NCCL_CONFIG_UNDEF_INT (NCCL decides)
 *      24  minCTAs          int             NCCL_CONFIG_UNDEF_INT
 *      28  maxCTAs          int             NCCL_CONFIG_UNDEF_INT
 *      32  netName          const char*     NULL
 * </pre>
 *
 * NCCL copies only {@code size} bytes of the caller's struct and reads the fields that {@code
 * version} had, filling the rest with its defaults, so this short form works with every NCCL from
 * 2.14 on, while the header's struct grows with each release. The environment ({@code
 * NCCL_CGA_CLUSTER_SIZE}, {@code NCCL_MIN_CTAS}, ...) still overrides the unset fields.
 */
@Structure.FieldOrder({
  "size",
  "magic",
  "version",
  "blocking",
  "cgaClusterSize",
  "minCTAs",
  "maxCTAs",
  "netName"
})
public class NcclConfig extends Structure {

  static final int API_MAGIC = 0xcafebeef;
  static final int UNDEF_INT = Integer.MIN_VALUE;
  static final int LAYOUT_VERSION = 21400;

  public long size;
  public int magic = API_MAGIC;
  public int version = LAYOUT_VERSION;
  public int blocking = UNDEF_INT;
  public int cgaClusterSize = UNDEF_INT;
  public int minCTAs = UNDEF_INT;
  public int maxCTAs = UNDEF_INT;
  public Pointer netName;

  /** A config whose calls never block: {@code blocking = 0}. */
  static NcclConfig nonBlocking() {
    NcclConfig c = new NcclConfig();
    c.size = c.size();
    c.blocking = 0;
    c.write();
    return c;
  }
}
