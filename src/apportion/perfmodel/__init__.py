"""Speed models (seed 002 ch. 3–4): CPM, FPM tables S(x), FPMC tables S(w, c); the FPM and FPMC solvers."""

from apportion.perfmodel.fpm import fpm_partition
from apportion.perfmodel.fpmc import FPMCResult, fpmc_partition
from apportion.perfmodel.models import CommunicationSpeed, ConstantSpeed, FunctionalSpeed, integer_shares

__all__ = ["ConstantSpeed", "FunctionalSpeed", "CommunicationSpeed", "fpm_partition", "fpmc_partition",
           "FPMCResult", "integer_shares"]
