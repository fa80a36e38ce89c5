"""torch.optim: optimizers (numpy updates in place, torch's single-tensor math) and learning-rate schedulers."""

from vfw.frontends.torch.optim import lr_scheduler, swa_utils  # noqa: F401
from vfw.frontends.torch.optim.adadelta import Adadelta
from vfw.frontends.torch.optim.adafactor import Adafactor
from vfw.frontends.torch.optim.adagrad import Adagrad
from vfw.frontends.torch.optim.adam import Adam
from vfw.frontends.torch.optim.adamax import Adamax
from vfw.frontends.torch.optim.adamw import AdamW
from vfw.frontends.torch.optim.asgd import ASGD
from vfw.frontends.torch.optim.lbfgs import LBFGS
from vfw.frontends.torch.optim.muon import Muon
from vfw.frontends.torch.optim.nadam import NAdam
from vfw.frontends.torch.optim.optimizer import Optimizer
from vfw.frontends.torch.optim.radam import RAdam
from vfw.frontends.torch.optim.rmsprop import RMSprop
from vfw.frontends.torch.optim.rprop import Rprop
from vfw.frontends.torch.optim.sgd import SGD
from vfw.frontends.torch.optim.sparse_adam import SparseAdam

__all__ = ["Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "LBFGS", "NAdam", "Optimizer", "RAdam", "RMSprop", "SGD",
           "SparseAdam", "lr_scheduler"] + ["ASGD", "Adafactor", "Rprop", "Muon"]
