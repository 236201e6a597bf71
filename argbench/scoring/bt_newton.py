"""The minimiser behind :func:`argbench.scoring.bradley_terry.fit_bradley_terry`.

The negative log-likelihood of Bradley–Terry with Rao–Kupper ties and the dummy regulariser
(:class:`Objective`) is a sum of ``log σ`` terms, so its gradient and Hessian are sums of ``σ``
and ``σ(1 − σ)`` over arrays: one vectorised pass per evaluation. :func:`newton` minimises it
by damped Newton (Armijo backtracking) with either step of :data:`SOLVERS`: the dense n × n
Hessian up to :data:`DENSE_MAX_ITEMS` items, conjugate gradients with Hessian–vector products
over the comparison graph above that (time and memory linear in items + judgments).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["DENSE_MAX_ITEMS", "SOLVERS", "Objective", "newton"]


def _logistic_terms(x):
    """``log σ(x)``, ``σ(−x)`` and ``σ(x) σ(−x)`` from one ``exp`` per element, accurate for
    any sign and size of ``x`` (no ``1 − σ`` cancellation)."""
    e = np.exp(-np.abs(x))
    log_sigmoid = np.minimum(x, 0.0) - np.log1p(e)
    complement = np.where(x >= 0, e, 1.0) / (1.0 + e)
    return log_sigmoid, complement, e / ((1.0 + e) * (1.0 + e))


class Objective:
    """Negative log-likelihood with analytic gradient and Hessian, vectorised over judgments.

    Every term is a log-logistic of a merit difference: a win of w over l is
    log σ(m_w − m_l − τ); a tie of a and b is log(θ² − 1) + log σ(d − τ) + log σ(−d − τ) with
    d = m_a − m_b; the regulariser is λ (log σ(m_i − D) + log σ(D − m_i)) for dummy merit D.
    With λ = 0 only differences are identified; the term ½(Σ m)² then pins the mean at 0
    without moving the differences.

    The Hessian is a weighted Laplacian of the comparison graph (one weight per judgment)
    plus a diagonal (plus 11ᵀ when λ = 0): ``hessian`` builds it dense (n × n), ``hessp``
    applies it to a vector in O(judgments) without forming it.
    """

    def __init__(self, regularization, threshold, dummy_merit, winner, loser, tie, n):
        self.lam, self.tau, self.dummy, self.n = regularization, threshold, dummy_merit, n
        # one index pair per judgment, wins then ties: difference d = m_first − m_second
        self.first = np.concatenate([winner[~tie], winner[tie]])
        self.second = np.concatenate([loser[~tie], loser[tie]])
        self.n_wins = int((~tie).sum())
        n_ties = len(self.first) - self.n_wins
        self.constant = n_ties * math.log(math.expm1(2 * threshold)) if n_ties else 0.0

    def _terms(self, m):
        """Per judgment: log-likelihood, ∂/∂d and −∂²/∂d² of its terms; per item: the same
        for the regulariser (∂/∂m_i and −∂²/∂m_i²)."""
        d = m[self.first] - m[self.second]
        log_up, slope, weight = _logistic_terms(d - self.tau)
        log_down, slope_down, weight_down = _logistic_terms(-d[self.n_wins :] - self.tau)
        slope[self.n_wins :] -= slope_down
        weight[self.n_wins :] += weight_down
        log_r, r_slope, r_weight = _logistic_terms(m - self.dummy)
        # log σ(r) + log σ(−r) = 2 log σ(r) − r; ∂/∂r = σ(−r) − σ(r) = 2σ(−r) − 1
        ll_items = self.lam * (2 * log_r.sum() - (m - self.dummy).sum())
        ll = log_up.sum() + log_down.sum() + self.constant + ll_items
        return ll, slope, weight, self.lam * (2 * r_slope - 1), 2 * self.lam * r_weight

    def __call__(self, m):
        ll, slope, _, item_slope, _ = self._terms(m)
        grad = (
            np.bincount(self.first, slope, self.n)
            - np.bincount(self.second, slope, self.n)
            + item_slope
        )
        value, gradient = -ll, -grad
        if self.lam == 0:
            total = m.sum()
            value, gradient = value + 0.5 * total * total, gradient + total
        return value, gradient

    def curvature(self, m):
        """Per-judgment Laplacian weights, the regulariser's diagonal, and the Hessian's
        diagonal (the pin term included)."""
        _, _, weight, _, item_weight = self._terms(m)
        degree = np.bincount(self.first, weight, self.n) + np.bincount(self.second, weight, self.n)
        return weight, item_weight, degree + item_weight + (1.0 if self.lam == 0 else 0.0)

    def hessian(self, m):
        n = self.n
        weight, _, diagonal = self.curvature(m)
        hess = np.bincount(self.first * n + self.second, weight, n * n).reshape(n, n)
        hess = -(hess + hess.T)
        if self.lam == 0:
            hess += 1.0
        hess[np.diag_indices(n)] = diagonal
        return hess

    def hessp(self, weight, item_weight):
        """v ↦ H v for the curvature of one point, in O(judgments) time and memory."""
        first, second, n, pinned = self.first, self.second, self.n, self.lam == 0

        def apply(v):
            t = weight * (v[first] - v[second])
            out = np.bincount(first, t, n) - np.bincount(second, t, n) + item_weight * v
            return out + v.sum() if pinned else out

        return apply


def _dot(x, y):
    """Dot product of two vectors without BLAS: OpenBLAS threads ddot on long vectors, and on
    a busy machine waking the threads cost ~5 ms per call here (20,000 elements, 2 shared
    cores), far more than the product; it made the 20,000-item fit 8x slower."""
    return float(np.einsum("i,i->", x, y))


def _dense_step(objective, m, grad, gradient_norm):
    """The exact Newton step: solve with the dense n × n Hessian (O(n³) time, O(n²) memory)."""
    return np.linalg.solve(objective.hessian(m), grad), 0


def _cg_step(objective, m, grad, gradient_norm):
    """An inexact Newton step: conjugate gradients on H s = g with H applied through the
    comparison graph (``hessp``, O(judgments) per product, no matrix) and a Jacobi
    preconditioner. It stops at relative residual min(0.1, max|g|): loose far from the optimum,
    tight near it, which keeps Newton's fast local convergence (Eisenstat & Walker's forcing
    terms). Every CG iterate is a descent direction, so stopping early is safe."""
    weight, item_weight, diagonal = objective.curvature(m)
    apply = objective.hessp(weight, item_weight)
    inverse = 1.0 / np.maximum(diagonal, np.finfo(float).tiny)
    target = min(0.1, gradient_norm) * math.sqrt(_dot(grad, grad))
    step = np.zeros_like(grad)
    residual = grad.copy()
    z = inverse * residual
    direction = z.copy()
    rz = _dot(residual, z)
    for iteration in range(1, len(grad) + 1):
        h_direction = apply(direction)
        curvature = _dot(direction, h_direction)
        if not curvature > 0:  # numerically flat: keep what we have (or the scaled gradient)
            return (step if iteration > 1 else z), iteration - 1
        alpha = rz / curvature
        step += alpha * direction
        residual -= alpha * h_direction
        if _dot(residual, residual) <= target * target:
            return step, iteration
        z = inverse * residual
        rz, previous = _dot(residual, z), rz
        direction = z + (rz / previous) * direction
    return step, len(grad)


def newton(objective, n, dummy_merit, gtol, max_iter, solve=_dense_step):
    """Damped Newton: a Newton step from ``solve``, Armijo backtracking; for a strictly convex
    objective it converges globally, and quadratically (superlinearly with CG) near the
    optimum. Returns merits, iterations, message, inner (CG) iterations."""
    m = np.full(n, dummy_merit if objective.lam > 0 else 0.0)  # the authors start at 1
    value, grad = objective(m)
    inner = 0
    for iteration in range(1, max_iter + 1):
        gradient_norm = np.abs(grad).max()
        if gradient_norm <= gtol:
            return m, iteration - 1, "gradient below gtol", inner
        step, steps = solve(objective, m, grad, gradient_norm)
        inner += steps
        slope = -_dot(grad, step)
        t = 1.0
        while True:
            candidate = m - t * step
            new_value, new_grad = objective(candidate)
            if new_value <= value + 1e-4 * t * slope:
                break
            # near the optimum the value stops changing at float precision: judge by gradient
            flat = new_value - value <= 1e-12 * abs(value)
            if flat and np.abs(new_grad).max() < gradient_norm:
                break
            t *= 0.5
            if t < 1e-12:  # no decrease at float precision: as close as arithmetic allows
                return m, iteration, "line search found no decrease (float precision)", inner
        m, value, grad = candidate, new_value, new_grad
    return m, max_iter, "max_iter reached", inner


# Dense Newton up to this many items, Newton–CG above (scripts/bench_pairwise.py --part
# crossover, 10 judgments per item): dense took 0.6–0.9x CG's time up to 100 items, 1.05x at
# 125, 1.2x at 150 and 12x at 500 — and 8x already at 150 when OpenBLAS threaded the solve on
# a busy machine. A dense step costs O(n³) time and 8n² bytes (3.2 GB at 20,000 items), a CG
# step a few O(judgments) products. The Webis topics (31–81 items) stay dense. Both reach the
# same optimum.
DENSE_MAX_ITEMS = 100
SOLVERS = {"newton": _dense_step, "newton-cg": _cg_step}
