/* Compiled core of tmap.cuts.select_cover: reduced priority cuts, depth pass, area flow and exact
 * area recovery. Same algorithm and data meaning as the Python reference in tmap/cuts.py
 * (Mishchenko et al., "Combinational and sequential mapping with priority cuts", ICCAD 2007;
 * reduced cuts: Bruneel et al., TODAES 16(4), 2011). Built by setup.py as tmap._cutsc (optional).
 * Wide cuts: K is the maximum number of leaves; a cut of n > lut_k leaves costs 2^(n - lut_k) LUTs
 * (lut_k = 6, K = 8: 2 or 4 LUT6 plus MUXF7/MUXF8, UG474), at the depth of one LUT.
 * TLUT size: a cut whose cone reads a parameter (flag tl, OR of the fanins' flags; a parameter-only
 * fanin sets it) is a TLUT; with tlut_k < lut_k it costs 2^(n - tlut_k) above tlut_k leaves (CFGLUT5
 * cofactors plus MUXF7/MUXF8) and has at most tlut_k + 2 leaves, and at equal LUTs fewer CFGLUT5s
 * win (cut_cost). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define MAXK 8
#define INF (1 << 30)

typedef struct {
    int leaves[MAXK];
    uint64_t sig;
    int n;       /* number of leaves */
    int tl;      /* the cone reads a parameter (a TLUT) */
    int delay;
    double af;   /* area flow */
    double key0; /* sort keys (mode dependent): (key0, key1, key2, order) */
    int key1;
    double key2;
    int order;   /* insertion order for stable sorting */
} Cut;

typedef struct {
    int nvars, first_and, K, C, lut_k, tlut_k;
    const int *f0, *f1;
    const unsigned char *param;
    unsigned char *is_and;
    Cut *cuts;      /* nvars * (C+1) */
    int *ncuts;
    Cut *best;      /* nvars */
    unsigned char *has_best;
    int *arr, *req, *refs, *stack;
    double *est, *af;
    int stack_cap;
} Mgr;

static inline uint64_t leaf_sig(int v) { return (uint64_t)1 << (v & 63); }

/* Cost of a cut of n leaves in LUTs: 1 up to lut_k leaves, else 2^(n - lut_k) (wide cut); a TLUT cut
 * with tl counts tlut_k instead of lut_k. With CFGLUT5 TLUTs (tlut_k < lut_k) every CFGLUT5 is also a
 * chain word of every rekey, so a LUT costs TLUT_UNIT and a CFGLUT5 one more: of two covers with the
 * same LUTs the one with fewer CFGLUT5s wins (tmap/cuts.py TLUT_UNIT). */
#define TLUT_UNIT 1024
static inline int cut_cost(const Mgr *m, const Cut *c) {
    int k = c->tl ? m->tlut_k : m->lut_k;
    int luts = c->n <= k ? 1 : 1 << (c->n - k);
    if (m->tlut_k >= m->lut_k) return luts;
    return luts * TLUT_UNIT + (c->tl ? luts : 0);
}

static int merge(const Cut *a, const Cut *b, Cut *r, int K) {
    int i = 0, j = 0, k = 0;
    while (i < a->n || j < b->n) {
        int x;
        if (j >= b->n || (i < a->n && a->leaves[i] < b->leaves[j])) x = a->leaves[i++];
        else if (i >= a->n || b->leaves[j] < a->leaves[i]) x = b->leaves[j++];
        else { x = a->leaves[i]; i++; j++; }
        if (k >= K) return 0;
        r->leaves[k++] = x;
    }
    r->n = k;
    r->sig = a->sig | b->sig;
    r->tl = a->tl | b->tl;
    return 1;
}

static int same_cut(const Cut *a, const Cut *b) {
    if (a->sig != b->sig || a->n != b->n) return 0;
    for (int i = 0; i < a->n; i++)
        if (a->leaves[i] != b->leaves[i]) return 0;
    return 1;
}

static int subset(const Cut *a, const Cut *b) { /* a ⊆ b */
    if (a->sig & ~b->sig) return 0;
    if (a->n > b->n) return 0;
    int j = 0;
    for (int i = 0; i < a->n; i++) {
        while (j < b->n && b->leaves[j] < a->leaves[i]) j++;
        if (j >= b->n || b->leaves[j] != a->leaves[i]) return 0;
        j++;
    }
    return 1;
}

static int cmp_cut(const void *pa, const void *pb) {
    const Cut *a = pa, *b = pb;
    if (a->key0 < b->key0) return -1;
    if (a->key0 > b->key0) return 1;
    if (a->key1 != b->key1) return a->key1 < b->key1 ? -1 : 1;
    if (a->key2 < b->key2) return -1;
    if (a->key2 > b->key2) return 1;
    return a->order - b->order;
}

static int ensure_stack(Mgr *m, int need) {
    if (need <= m->stack_cap) return 1;
    int cap = m->stack_cap * 2 > need ? m->stack_cap * 2 : need;
    int *s = realloc(m->stack, sizeof(int) * (size_t)cap);
    if (!s) return 0;
    m->stack = s;
    m->stack_cap = cap;
    return 1;
}

/* reference (dir=+1) or dereference (dir=-1) a cut recursively; returns the area (LUT count) */
static int ref_cut(Mgr *m, const Cut *c, int dir) {
    int area = cut_cost(m, c), sp = 0;
    for (int i = 0; i < c->n; i++) {
        int l = c->leaves[i];
        if (!m->is_and[l]) continue;
        int r = m->refs[l];
        m->refs[l] = r + dir;
        if ((dir > 0 && r == 0) || (dir < 0 && r == 1)) {
            if (!ensure_stack(m, sp + 1)) return -1;
            m->stack[sp++] = l;
        }
    }
    while (sp) {
        int v = m->stack[--sp];
        const Cut *b = &m->best[v];
        area += cut_cost(m, b);
        for (int i = 0; i < b->n; i++) {
            int l = b->leaves[i];
            if (!m->is_and[l]) continue;
            int r = m->refs[l];
            m->refs[l] = r + dir;
            if ((dir > 0 && r == 0) || (dir < 0 && r == 1)) {
                if (!ensure_stack(m, sp + 1)) return -1;
                m->stack[sp++] = l;
            }
        }
    }
    return area;
}

enum { DELAY = 0, FLOW = 1, EXACT = 2, DELAY2 = 3 };
/* depth passes of area_mode 4 (tmap/cuts.py DEPTH_ROUNDS) */
#define DEPTH_ROUNDS 6

static int do_pass(Mgr *m, int mode, Cut *cand, int cand_cap) {
    int n = m->nvars, C = m->C, K = m->K, S = C + 1;
    for (int v = 0; v < n; v++) m->af[v] = 0.0;
    for (int v = 0; v < m->first_and; v++) {
        Cut *c = &m->cuts[(size_t)v * S];
        if (m->param[v] || v == 0) { c->n = 0; c->sig = 0; c->tl = v != 0; }
        else { c->n = 1; c->leaves[0] = v; c->sig = leaf_sig(v); c->tl = 0; }
        m->ncuts[v] = 1;
    }
    for (int v = m->first_and; v < n; v++) {
        if (m->param[v]) {
            Cut *c = &m->cuts[(size_t)v * S];
            c->n = 0; c->sig = 0; c->tl = 1;
            m->ncuts[v] = 1;
            continue;
        }
        const Cut *ca = &m->cuts[(size_t)m->f0[v] * S], *cb = &m->cuts[(size_t)m->f1[v] * S];
        int na = m->ncuts[m->f0[v]], nb = m->ncuts[m->f1[v]], nc = 0;
        for (int i = 0; i < na; i++)
            for (int j = 0; j < nb; j++) {
                uint64_t s = ca[i].sig | cb[j].sig;
                if (__builtin_popcountll(s) > K) continue;
                Cut *r = &cand[nc];
                if (!merge(&ca[i], &cb[j], r, K)) continue;
                if (r->tl && r->n > m->tlut_k + 2) continue;
                int dup = 0;
                for (int t = 0; t < nc; t++)
                    if (same_cut(&cand[t], r)) { dup = 1; break; }
                if (!dup && nc < cand_cap - 1) nc++;
            }
        if (m->has_best[v]) {
            int dup = 0;
            for (int t = 0; t < nc; t++)
                if (same_cut(&cand[t], &m->best[v])) { dup = 1; break; }
            if (!dup) cand[nc++] = m->best[v];
        }
        int r0 = 0;
        if (mode == EXACT) {
            r0 = m->refs[v];
            if (r0 && m->has_best[v])
                if (ref_cut(m, &m->best[v], -1) < 0) return -1;
        }
        int rv = m->req[v], ns = 0;
        for (int t = 0; t < nc; t++) {
            Cut *c = &cand[t];
            int d = 0;
            double s = 0.0;
            for (int i = 0; i < c->n; i++) {
                int l = c->leaves[i];
                if (m->arr[l] > d) d = m->arr[l];
                s += m->af[l];
            }
            d += 1;
            int is_prev = m->has_best[v] && same_cut(c, &m->best[v]);
            if (d > rv && !is_prev) continue;
            c->delay = d;
            c->af = ((double)cut_cost(m, c) + s) / m->est[v];
            c->order = t;
            if (mode == DELAY) { c->key0 = d; c->key1 = c->n; c->key2 = c->af; }
            else if (mode == DELAY2) { c->key0 = d; c->key1 = 0; c->key2 = c->af; }
            else if (mode == EXACT) {
                int ar = ref_cut(m, c, +1);
                if (ar < 0 || ref_cut(m, c, -1) < 0) return -1;
                c->key0 = ar; c->key1 = c->n; c->key2 = d;
            } else { c->key0 = c->af; c->key1 = c->n; c->key2 = d; }
            cand[ns++] = *c;
        }
        /* stable insertion sort (ns is small; order breaks ties) */
        for (int i = 1; i < ns; i++) {
            Cut x = cand[i];
            int j = i - 1;
            while (j >= 0 && cmp_cut(&cand[j], &x) > 0) {
                cand[j + 1] = cand[j];
                j--;
            }
            cand[j + 1] = x;
        }
        Cut *store = &m->cuts[(size_t)v * S];
        int nk = 0;
        for (int t = 0; t < ns && nk < C; t++) {
            int dom = 0;
            for (int u = 0; u < nk; u++)
                if (subset(&store[u], &cand[t])) { dom = 1; break; }
            if (!dom) store[nk++] = cand[t];
        }
        if (nk == 0) { /* cannot happen: keep something */
            store[nk++] = cand[0];
        }
        m->best[v] = store[0];
        m->has_best[v] = 1;
        if (mode == EXACT && r0)
            if (ref_cut(m, &m->best[v], +1) < 0) return -1;
        m->arr[v] = store[0].delay;
        m->af[v] = store[0].af;
        Cut *triv = &store[nk];
        triv->n = 1; triv->leaves[0] = v; triv->sig = leaf_sig(v); triv->tl = 0;
        m->ncuts[v] = nk + 1;
    }
    return 0;
}

static void cover_refs(Mgr *m, const int *outs, Py_ssize_t nouts) {
    memset(m->refs, 0, sizeof(int) * (size_t)m->nvars);
    for (Py_ssize_t i = 0; i < nouts; i++) m->refs[outs[i]]++;
    for (int v = m->nvars - 1; v >= m->first_and; v--)
        if (m->refs[v] && m->is_and[v])
            for (int i = 0; i < m->best[v].n; i++) m->refs[m->best[v].leaves[i]]++;
}

static PyObject *py_select_cover(PyObject *self, PyObject *args) {
    int first_and, K, C, area_mode, flow_passes, exact_passes, lut_k = 0, depth_bound = 0, tlut_k = 0;
    Py_buffer b0, b1, bp, bo;
    if (!PyArg_ParseTuple(args, "iy*y*y*y*iiiii|iii", &first_and, &b0, &b1, &bp, &bo, &K, &C, &area_mode,
                          &flow_passes, &exact_passes, &lut_k, &depth_bound, &tlut_k))
        return NULL;
    if (lut_k <= 0 || lut_k > K) lut_k = K;
    if (tlut_k <= 0 || tlut_k > lut_k) tlut_k = lut_k;
    PyObject *result = NULL;
    Mgr m;
    memset(&m, 0, sizeof m);
    Cut *cand = NULL;
    int n = (int)(b0.len / sizeof(int));
    if (K < 1 || K > MAXK || C < 1 || b1.len != b0.len || bp.len != n || first_and < 1 || first_and > n) {
        PyErr_SetString(PyExc_ValueError, "select_cover: bad arguments");
        goto done;
    }
    m.nvars = n; m.first_and = first_and; m.K = K; m.C = C; m.lut_k = lut_k; m.tlut_k = tlut_k;
    m.f0 = b0.buf; m.f1 = b1.buf; m.param = bp.buf;
    const int *outs = bo.buf;
    Py_ssize_t nouts = bo.len / (Py_ssize_t)sizeof(int);
    int S = C + 1;
    m.is_and = calloc((size_t)n, 1);
    m.cuts = malloc(sizeof(Cut) * (size_t)n * (size_t)S);
    m.ncuts = calloc((size_t)n, sizeof(int));
    m.best = calloc((size_t)n, sizeof(Cut));
    m.has_best = calloc((size_t)n, 1);
    m.arr = calloc((size_t)n, sizeof(int));
    m.req = malloc(sizeof(int) * (size_t)n);
    m.refs = calloc((size_t)n, sizeof(int));
    m.est = malloc(sizeof(double) * (size_t)n);
    m.af = calloc((size_t)n, sizeof(double));
    m.stack_cap = 1024;
    m.stack = malloc(sizeof(int) * (size_t)m.stack_cap);
    int cand_cap = S * S + 2;
    cand = malloc(sizeof(Cut) * (size_t)cand_cap);
    if (!m.is_and || !m.cuts || !m.ncuts || !m.best || !m.has_best || !m.arr || !m.req || !m.refs || !m.est ||
        !m.af || !m.stack || !cand) {
        PyErr_NoMemory();
        goto done;
    }
    int *fanout = m.refs; /* temporary use */
    for (int v = first_and; v < n; v++)
        if (!m.param[v]) {
            m.is_and[v] = 1;
            fanout[m.f0[v]]++;
            fanout[m.f1[v]]++;
        }
    for (Py_ssize_t i = 0; i < nouts; i++) fanout[outs[i]]++;
    for (int v = 0; v < n; v++) {
        m.est[v] = fanout[v] > 1 ? (double)fanout[v] : 1.0;
        m.req[v] = INF;
    }
    memset(m.refs, 0, sizeof(int) * (size_t)n);
    /* area_mode 4: DEPTH_ROUNDS depth passes alternating DELAY / DELAY2, each keeping every node's
       previous cut as a candidate (arrival times can only decrease) */
    int ndelay = area_mode == 4 ? DEPTH_ROUNDS : 1;
    int npass = ndelay + flow_passes + exact_passes;
    int depth = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int p = 0; p < npass; p++) {
        int mode = p < ndelay ? (area_mode == 2 ? FLOW : area_mode == 3 || p % 2 == 1 ? DELAY2 : DELAY)
                              : (p < ndelay + flow_passes ? FLOW : EXACT);
        if (do_pass(&m, mode, cand, cand_cap) < 0) { depth = -1; break; }
        cover_refs(&m, outs, nouts);
        depth = 0;
        for (Py_ssize_t i = 0; i < nouts; i++)
            if (m.arr[outs[i]] > depth) depth = m.arr[outs[i]];
        int target = (area_mode == 1 || area_mode == 2) ? INF : (depth > depth_bound ? depth : depth_bound);
        for (int v = 0; v < n; v++) m.req[v] = INF;
        for (Py_ssize_t i = 0; i < nouts; i++)
            if (m.is_and[outs[i]] && m.req[outs[i]] > target) m.req[outs[i]] = target;
        for (int v = n - 1; v >= first_and; v--)
            if (m.refs[v] && m.is_and[v]) {
                int r = m.req[v] - 1;
                for (int i = 0; i < m.best[v].n; i++) {
                    int l = m.best[v].leaves[i];
                    if (m.req[l] > r) m.req[l] = r;
                }
            }
        for (int v = first_and; v < n; v++)
            if (m.is_and[v]) {
                double e = (m.est[v] + 2.0 * m.refs[v]) / 3.0;
                m.est[v] = e > 1.0 ? e : 1.0;
            }
    }
    Py_END_ALLOW_THREADS
    if (depth < 0) { PyErr_NoMemory(); goto done; }
    {
        PyObject *best = PyList_New(n), *arr = PyList_New(n), *refs = PyList_New(n);
        PyObject *tl = PyBytes_FromStringAndSize(NULL, n);
        if (!best || !arr || !refs || !tl) {
            Py_XDECREF(best); Py_XDECREF(arr); Py_XDECREF(refs); Py_XDECREF(tl);
            goto done;
        }
        char *tlb = PyBytes_AS_STRING(tl);
        for (int v = 0; v < n; v++) {
            PyObject *t;
            if (m.is_and[v] && m.has_best[v]) {
                t = PyTuple_New(m.best[v].n);
                for (int i = 0; i < m.best[v].n; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLong(m.best[v].leaves[i]));
            } else {
                t = Py_None;
                Py_INCREF(t);
            }
            PyList_SET_ITEM(best, v, t);
            PyList_SET_ITEM(arr, v, PyLong_FromLong(m.arr[v]));
            PyList_SET_ITEM(refs, v, PyLong_FromLong(m.refs[v]));
            tlb[v] = (char)(m.is_and[v] && m.has_best[v] && m.best[v].tl);
        }
        result = Py_BuildValue("(NNNiN)", best, arr, refs, depth, tl);
    }
done:
    free(m.is_and); free(m.cuts); free(m.ncuts); free(m.best); free(m.has_best); free(m.arr); free(m.req);
    free(m.refs); free(m.est); free(m.af); free(m.stack); free(cand);
    PyBuffer_Release(&b0); PyBuffer_Release(&b1); PyBuffer_Release(&bp); PyBuffer_Release(&bo);
    return result;
}

static PyMethodDef methods[] = {
    {"select_cover", py_select_cover, METH_VARARGS,
     "select_cover(first_and, fanin0: int32 buffer, fanin1, param: bytes, out_vars: int32 buffer, K, C, "
     "area_mode, flow_passes, exact_passes[, lut_k, depth_bound, tlut_k]) -> (best, arrival, refs, depth, tl); K: "
     "maximum leaves, lut_k: leaves of one LUT (wider cuts cost 2^(n - lut_k)), depth_bound: required time of "
     "the outputs when above the depth found (0: none), tlut_k: leaves of one TLUT (0: lut_k; wider TLUT cuts "
     "cost 2^(n - tlut_k), at most tlut_k + 2 leaves), tl: per variable 1 when its chosen cut reads a parameter"},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef moddef = {PyModuleDef_HEAD_INIT, "tmap._cutsc",
                                    "Compiled reduced priority-cut selection (see tmap.cuts).", -1, methods};

PyMODINIT_FUNC PyInit__cutsc(void) { return PyModule_Create(&moddef); }
