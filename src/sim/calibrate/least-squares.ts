/**
 * @module sim/calibrate/least-squares
 * The nonlinear least squares `servelab calibrate` fits with: Levenberg–Marquardt over
 * log-parameters (so every parameter stays positive) with standard errors from the Jacobian at
 * the optimum, and the small dense linear algebra it needs. Generic numerics: it knows nothing
 * of the cost model or of records.
 */

/** Solve A·x = b (A symmetric positive definite, small) by Gaussian elimination with pivoting. */
function solve(A: number[][], b: number[]): number[] | null {
  const n = b.length;
  const M = A.map((row, i) => [...row, b[i]]);
  for (let c = 0; c < n; c++) {
    let piv = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(M[r][c]) > Math.abs(M[piv][c])) piv = r;
    if (Math.abs(M[piv][c]) < 1e-300) return null;
    [M[c], M[piv]] = [M[piv], M[c]];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = M[r][c] / M[c][c];
      for (let k = c; k <= n; k++) M[r][k] -= f * M[c][k];
    }
  }
  return M.map((row, i) => row[n] / row[i]);
}

function inverse(A: number[][]): number[][] | null {
  const n = A.length;
  const cols: number[][] = [];
  for (let i = 0; i < n; i++) {
    const e = Array.from({ length: n }, (_, k) => (k === i ? 1 : 0));
    const x = solve(A, e);
    if (!x) return null;
    cols.push(x);
  }
  return cols[0].map((_, r) => cols.map((c) => c[r]));
}

/**
 * Levenberg–Marquardt over log-parameters for residuals `res(p)` (relative errors). Returns the
 * parameters, the residuals at them and the standard errors of the parameters (from the
 * Jacobian at the optimum, σ² = RSS/(N − k)).
 */
export function levenbergMarquardt(
  res: (p: readonly number[]) => number[],
  p0: readonly number[],
  opts: {
    maxIter?: number;
    /**
     * Finite-difference step in log-parameter space (default 1e-6). A simulated objective that
     * moves in small jumps (discrete events) needs a larger one, e.g. 0.02.
     */
    h?: number;
    /** Called after each accepted iteration with the sum of squares (progress). */
    onIter?: (it: number, cost: number, p: readonly number[]) => void;
  } = {},
): { p: number[]; residuals: number[]; stderr: number[]; jacobian: number[][] } {
  const k = p0.length;
  let q = p0.map(Math.log);
  const at = (qq: readonly number[]) => res(qq.map(Math.exp));
  const ss = (r: readonly number[]) => r.reduce((s, x) => s + x * x, 0);
  let r = at(q);
  let cost = ss(r);
  let lambda = 1e-3;
  const jac = (qq: readonly number[], r0: readonly number[]) => {
    const J: number[][] = r0.map(() => new Array(k).fill(0));
    for (let j = 0; j < k; j++) {
      const h = opts.h ?? 1e-6;
      const qp = [...qq];
      qp[j] += h;
      const rp = at(qp);
      for (let i = 0; i < r0.length; i++) J[i][j] = (rp[i] - r0[i]) / h;
    }
    return J;
  };
  const normal = (J: number[][], rr: readonly number[]) => {
    const A = Array.from({ length: k }, () => new Array(k).fill(0));
    const g = new Array(k).fill(0);
    for (let i = 0; i < rr.length; i++) {
      const row = J[i];
      for (let a = 0; a < k; a++) {
        g[a] += row[a] * rr[i];
        for (let b = 0; b <= a; b++) A[a][b] += row[a] * row[b];
      }
    }
    for (let a = 0; a < k; a++) for (let b = a + 1; b < k; b++) A[a][b] = A[b][a];
    return { A, g };
  };
  for (let it = 0; it < (opts.maxIter ?? 100); it++) {
    const J = jac(q, r);
    const { A, g } = normal(J, r);
    let improved = false;
    for (let tries = 0; tries < 20; tries++) {
      const D = A.map((row, a) => row.map((v, b) => (a === b ? v * (1 + lambda) + 1e-12 : v)));
      const step = solve(
        D,
        g.map((x) => -x),
      );
      if (!step) break;
      const qn = q.map((x, j) => x + step[j]);
      const rn = at(qn);
      const cn = ss(rn);
      if (Number.isFinite(cn) && cn < cost) {
        const rel = (cost - cn) / Math.max(cost, 1e-300);
        q = qn;
        r = rn;
        cost = cn;
        lambda = Math.max(lambda / 10, 1e-12);
        improved = rel > (opts.h ? 1e-4 : 1e-14);
        opts.onIter?.(it, cost, q.map(Math.exp));
        break;
      }
      lambda *= 10;
    }
    if (!improved) break;
  }
  const J = jac(q, r);
  const { A } = normal(J, r);
  const inv = inverse(A);
  const dof = Math.max(1, r.length - k);
  const s2 = cost / dof;
  const p = q.map(Math.exp);
  // se(p) = p · se(log p).
  const stderr = p.map((v, j) =>
    inv ? v * Math.sqrt(Math.max(0, inv[j][j] * s2)) : Number.POSITIVE_INFINITY,
  );
  // The Jacobian is d r / d log p at the optimum.
  return { p, residuals: r, stderr, jacobian: J };
}
