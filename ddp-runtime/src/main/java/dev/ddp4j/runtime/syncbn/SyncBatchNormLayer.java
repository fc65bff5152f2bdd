package dev.ddp4j.runtime.syncbn;

import dev.ddp4j.ConfigException;
import java.util.Map;
import org.deeplearning4j.nn.api.Layer;
import org.deeplearning4j.nn.conf.CNN2DFormat;
import org.deeplearning4j.nn.gradient.DefaultGradient;
import org.deeplearning4j.nn.gradient.Gradient;
import org.deeplearning4j.nn.layers.normalization.BatchNormalization;
import org.deeplearning4j.nn.layers.wrapper.BaseWrapperLayer;
import org.deeplearning4j.nn.params.BatchNormalizationParamInitializer;
import org.deeplearning4j.nn.workspace.ArrayType;
import org.deeplearning4j.nn.workspace.LayerWorkspaceMgr;
import org.nd4j.common.primitives.Pair;
import org.nd4j.linalg.api.buffer.DataType;
import org.nd4j.linalg.api.memory.MemoryWorkspace;
import org.nd4j.linalg.api.ndarray.INDArray;
import org.nd4j.linalg.factory.Nd4j;
import org.nd4j.linalg.ops.transforms.Transforms;

/**
 * A DL4J {@link BatchNormalization} layer whose training forward normalises with the mean and
 * variance of every rank's examples together, and whose backward is the matching gradient, so that
 * N ranks with B examples each compute what one process computes on the N*B examples (PyTorch's
 * SyncBatchNorm). Inference (training = false) is DL4J's own code, with the running statistics.
 *
 * <p>Dense ({@code [N, C]}) and CNN ({@code [N, C, H, W]}, NCHW) inputs, learned gamma/beta. The
 * running statistics move by DL4J's own rule, written like DL4J as the layer's "gradient" of the
 * mean and of the variance (or, with {@code useLogStd}, DL4J's default, of log10 of the standard
 * deviation), now from the global batch: {@code mean <- decay * mean + (1 - decay) * batchMean},
 * {@code var <- decay * var + (1 - decay) * batchVar}. Arrays kept from forward to backward live
 * outside workspaces.
 */
public final class SyncBatchNormLayer extends BaseWrapperLayer {
  private static final long serialVersionUID = 1L;

  private final transient StatsReducer reducer;

  /** (x - mean) / std of the last training forward, [rows, C] float64, for the backward. */
  private transient INDArray xHat2d;

  private transient BatchStatistics stats;

  public SyncBatchNormLayer(BatchNormalization underlying, StatsReducer reducer) {
    super(underlying);
    this.reducer = reducer;
    org.deeplearning4j.nn.conf.layers.BatchNormalization c = conf(underlying);
    if (c.isLockGammaBeta() || c.getCnn2DFormat() != CNN2DFormat.NCHW) {
      throw new ConfigException(
          "layer "
              + underlying.getIndex()
              + ": synchronised batch norm supports learned gamma/beta and NCHW (got lockGammaBeta="
              + c.isLockGammaBeta()
              + ", format="
              + c.getCnn2DFormat()
              + "); change the layer or turn DDP4J_SYNC_BATCHNORM off");
    }
  }

  /** Wraps {@code layer} if it is a BatchNormalization layer; returns others unchanged. */
  public static Layer wrapIfBatchNorm(Layer layer, StatsReducer reducer) {
    return layer instanceof BatchNormalization
        ? new SyncBatchNormLayer((BatchNormalization) layer, reducer)
        : layer;
  }

  private static org.deeplearning4j.nn.conf.layers.BatchNormalization conf(Layer layer) {
    return (org.deeplearning4j.nn.conf.layers.BatchNormalization) layer.conf().getLayer();
  }

  @Override
  public INDArray activate(boolean training, LayerWorkspaceMgr workspaceMgr) {
    return training ? forward(workspaceMgr) : underlying.activate(false, workspaceMgr);
  }

  @Override
  public INDArray activate(INDArray input, boolean training, LayerWorkspaceMgr workspaceMgr) {
    if (!training) {
      return underlying.activate(input, false, workspaceMgr);
    }
    underlying.setInput(input, workspaceMgr);
    return forward(workspaceMgr);
  }

  private INDArray forward(LayerWorkspaceMgr workspaceMgr) {
    INDArray x = underlying.input();
    INDArray out;
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      INDArray x2d = Layout.toRows(x);
      // The running mean is the shift of the statistics: identical on every rank, near the mean.
      INDArray shift = underlying.getParam(BatchNormalizationParamInitializer.GLOBAL_MEAN);
      stats = BatchStatistics.of(x2d, shift, conf(underlying).getEps(), reducer);
      xHat2d = stats.normalise(x2d);
      INDArray gamma = row(underlying.getParam(BatchNormalizationParamInitializer.GAMMA));
      INDArray beta = row(underlying.getParam(BatchNormalizationParamInitializer.BETA));
      INDArray y2d =
          xHat2d
              .mulRowVector(gamma.castTo(DataType.DOUBLE))
              .addiRowVector(beta.castTo(DataType.DOUBLE));
      out = Layout.fromRows(y2d.castTo(x.dataType()), x.shape());
    }
    return workspaceMgr
        .createUninitialized(ArrayType.ACTIVATIONS, x.dataType(), x.shape(), 'c')
        .assign(out);
  }

  @Override
  public Pair<Gradient, INDArray> backpropGradient(
      INDArray epsilon, LayerWorkspaceMgr workspaceMgr) {
    if (stats == null) {
      throw new IllegalStateException(
          "backprop through synchronised batch norm without a training forward pass first");
    }
    Gradient gradient = new DefaultGradient();
    INDArray dx;
    try (MemoryWorkspace ws = Nd4j.getWorkspaceManager().scopeOutOfWorkspaces()) {
      INDArray eps2d = Layout.toRows(epsilon).castTo(DataType.DOUBLE);
      Map<String, INDArray> views =
          BatchNormalizationParamInitializer.getInstance()
              .getGradientsFromFlattened(underlying.conf(), underlying.getGradientsViewArray());
      INDArray gamma =
          row(underlying.getParam(BatchNormalizationParamInitializer.GAMMA))
              .castTo(DataType.DOUBLE);
      INDArray gammaGrad = views.get(BatchNormalizationParamInitializer.GAMMA);
      gammaGrad.assign(eps2d.mul(xHat2d).sum(0).castTo(gammaGrad.dataType()));
      INDArray betaGrad = views.get(BatchNormalizationParamInitializer.BETA);
      betaGrad.assign(eps2d.sum(0).castTo(betaGrad.dataType()));
      INDArray dxHat = eps2d.mulRowVector(gamma);
      INDArray dx2d = stats.inputGradient(dxHat, xHat2d, reducer);
      dx = Layout.fromRows(dx2d.castTo(epsilon.dataType()), epsilon.shape());
      // Running statistics: DL4J's no-op updater subtracts these "gradients" from the parameters;
      // DdpModel averages them over ranks (identical on every rank here).
      double decay = conf(underlying).getDecay();
      runningMeanStep(views.get(BatchNormalizationParamInitializer.GLOBAL_MEAN), decay);
      boolean logStd = conf(underlying).isUseLogStd();
      String varName =
          logStd
              ? BatchNormalizationParamInitializer.GLOBAL_LOG_STD
              : BatchNormalizationParamInitializer.GLOBAL_VAR;
      runningVarianceStep(views.get(varName), varName, logStd, decay);
      for (String name :
          new String[] {
            BatchNormalizationParamInitializer.GAMMA,
            BatchNormalizationParamInitializer.BETA,
            BatchNormalizationParamInitializer.GLOBAL_MEAN,
            varName
          }) {
        gradient.setGradientFor(name, views.get(name));
      }
      stats = null;
      xHat2d = null;
    }
    INDArray next =
        workspaceMgr
            .createUninitialized(
                ArrayType.ACTIVATION_GRAD, epsilon.dataType(), epsilon.shape(), 'c')
            .assign(dx);
    return new Pair<>(gradient, next);
  }

  private void runningMeanStep(INDArray view, double decay) {
    INDArray running =
        underlying.getParam(BatchNormalizationParamInitializer.GLOBAL_MEAN).reshape(-1);
    view.assign(running.sub(stats.mean.castTo(running.dataType())).muli(1 - decay));
  }

  private void runningVarianceStep(INDArray view, String name, boolean logStd, double decay) {
    INDArray running = underlying.getParam(name).reshape(-1);
    if (!logStd) {
      view.assign(running.sub(stats.variance.castTo(running.dataType())).muli(1 - decay));
      return;
    }
    // log10(std) -= 0.5 * log10(old / new) leaves log10(sqrt(new)), as DL4J does.
    INDArray oldVar =
        Transforms.pow(
            Nd4j.valueArrayOf(running.shape(), 10.0, running.dataType()), running, false);
    oldVar.muli(oldVar);
    INDArray newVar =
        oldVar.mul(decay).addi(stats.variance.castTo(oldVar.dataType()).mul(1 - decay));
    view.assign(Transforms.log(oldVar.divi(newVar), false).muli(0.5 / Math.log(10)));
  }

  private static INDArray row(INDArray param) {
    return param.reshape(1, param.length());
  }
}
