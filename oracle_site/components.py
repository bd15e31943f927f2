"""TEMPORARY alias until questions/ imports runtime.components (issue 14 merge): delete this file."""

import sys

from runtime import components

sys.modules[__name__] = components
