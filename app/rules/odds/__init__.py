"""Exact odds: the distribution of any dice expression, and what an action may do before
it is made (docs/odds.md).

``distribution(text)`` reads an expression of the notation (docs/dice.md) into its exact
distribution; ``app.rules.odds.action`` is what games build an action's odds from.
Pure: no web, no database; the web computes in a worker thread (``app.services.odds``).
"""

from app.rules.odds.budget import MAX_SECONDS, MAX_VALUES, Budget, OddsRefused
from app.rules.odds.distribution import COMPARISONS, Cut, Distribution
from app.rules.odds.exact import distribution

__all__ = ["COMPARISONS", "MAX_SECONDS", "MAX_VALUES", "Budget", "Cut", "Distribution",
           "OddsRefused", "distribution"]
