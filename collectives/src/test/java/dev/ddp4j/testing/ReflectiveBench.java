package dev.ddp4j.testing;

import dev.ddp4j.ProcessGroup;
import java.lang.reflect.Method;

/**
 * A development probe (not a test): runs the launcher's bench worker loop in a rank process of
 * {@link RankProcessMain} when launcher classes are on the classpath (args: op dtype redop root
 * minBytes maxBytes factor iterations).
 */
public final class ReflectiveBench implements RankProcessMain.RankScenario {
  @Override
  public void run(ProcessGroup pg, String[] a) throws Exception {
    Class<?> worker = Class.forName("dev.ddp4j.launcher.bench.BenchWorker");
    Class<?> coll = Class.forName("dev.ddp4j.launcher.bench.BenchCollective");
    Method parse = coll.getDeclaredMethod("parse", String.class);
    parse.setAccessible(true);
    Method run = null;
    for (Method m : worker.getDeclaredMethods()) {
      if (m.getName().equals("run")) {
        run = m;
      }
    }
    run.setAccessible(true);
    run.invoke(
        null,
        pg,
        parse.invoke(null, a[0]),
        dev.ddp4j.DataType.parse(a[1]),
        dev.ddp4j.ReduceOp.parse(a[2]),
        Integer.parseInt(a[3]),
        Long.parseLong(a[4]),
        Long.parseLong(a[5]),
        Integer.parseInt(a[6]),
        Long.parseLong(a[7]));
  }
}
