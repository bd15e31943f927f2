"""TEMPORARY alias until questions/ imports runtime.ratelimit (issue 14 merge): delete this file."""

import sys

from runtime import ratelimit

sys.modules[__name__] = ratelimit
