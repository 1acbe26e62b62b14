# generic Kinon & Betsch (2024) EML (their reduced form (101)-(103)) for bodies (x, q) with quadratic constraints, midpoint gradients
import numpy as np, sys
sys.path.insert(0,'/tmp/em_check'); from eml import *
def bar(X): return np.vstack([np.concatenate([[0],-X]), np.hstack([X[:,None], -hat(X)])])
def dRX(q, X): return 2*E(q)@bar(X)          # d/dq (R(q) X), 3x4, R homogeneous quadratic
class MBS:
    def __init__(s, m, J, joints, grav=np.zeros(3), fext=None):
        s.m, s.J, s.joints, s.grav, s.fext = m, J, joints, grav, fext
        s.nb = len(m); s.n = 7*s.nb; s.nc = s.nb + 3*len(joints)
    def g(s, z):
        out = [0.5*(z[7*i+3:7*i+7]@z[7*i+3:7*i+7]-1) for i in range(s.nb)]
        for (a, Xa, b, Xb) in s.joints:   # b = -1: world point Xb
            ga = z[7*a:7*a+3] + R(z[7*a+3:7*a+7])@Xa
            gb = Xb if b < 0 else z[7*b:7*b+3] + R(z[7*b+3:7*b+7])@Xb
            out += list(ga - gb)
        return np.array(out)
    def Dg(s, z):
        D = np.zeros((s.nc, s.n))
        for i in range(s.nb): D[i, 7*i+3:7*i+7] = z[7*i+3:7*i+7]
        r = s.nb
        for (a, Xa, b, Xb) in s.joints:
            D[r:r+3, 7*a:7*a+3] = np.eye(3); D[r:r+3, 7*a+3:7*a+7] = dRX(z[7*a+3:7*a+7], Xa)
            if b >= 0: D[r:r+3, 7*b:7*b+3] = -np.eye(3); D[r:r+3, 7*b+3:7*b+7] = -dRX(z[7*b+3:7*b+7], Xb)
            r += 3
        return D
    def V(s, z): return sum(-s.m[i]*s.grav@z[7*i:7*i+3] for i in range(s.nb))
    def parts(s, z, v, z1, v1, t, h):
        zm, vm = (z+z1)/2, (v+v1)/2; dqT = np.zeros(s.n); dvT = np.zeros(s.n); dV = np.zeros(s.n)
        for i in range(s.nb):
            o = 7*i; J = s.J[i]
            dvT[o:o+3] = s.m[i]*vm[o:o+3]; dV[o:o+3] = -s.m[i]*s.grav
            Om = G(z[o+3:o+7])@v[o+3:o+7] + G(z1[o+3:o+7])@v1[o+3:o+7]
            dvT[o+3:o+7] = 2*G(zm[o+3:o+7]).T@J@Om; dqT[o+3:o+7] = -2*G(vm[o+3:o+7]).T@J@Om
        f = s.fext(zm, t+h/2) if s.fext else np.zeros(s.n)
        return dqT, dvT, dV, f, s.Dg(zm)
    def step(s, z, v, p, t, h):
        def F(w):
            z1, lam = w[:s.n], w[s.n:]; v1 = 2/h*(z1-z)-v
            dqT, dvT, dV, f, Dgm = s.parts(z, v, z1, v1, t, h); p1 = 2*dvT - p
            return np.concatenate([p1-p-h*dqT+h*dV+h*Dgm.T@lam-h*f, s.g(z1)])
        w, k = newton(F, np.concatenate([z+h*v, np.zeros(s.nc)]))
        z1 = w[:s.n]; v1 = 2/h*(z1-z)-v; p1 = 2*s.parts(z, v, z1, v1, t, h)[1] - p
        return z1, v1, p1, k, w[s.n:]
    def energy(s, z, v, p):
        e = p@v + s.V(z)
        for i in range(s.nb):
            o = 7*i; Om = 2*G(z[o+3:o+7])@v[o+3:o+7]
            e -= 0.5*s.m[i]*v[o:o+3]@v[o:o+3] + 0.5*Om@s.J[i]@Om
        return e
    def Etot(s, z, v):
        return s.V(z)+sum(0.5*s.m[i]*v[7*i:7*i+3]@v[7*i:7*i+3] + 0.5*(2*G(z[7*i+3:7*i+7])@v[7*i+3:7*i+7])@s.J[i]@(2*G(z[7*i+3:7*i+7])@v[7*i+3:7*i+7]) for i in range(s.nb))
    def L(s, z, p):
        return sum(np.cross(z[7*i:7*i+3], p[7*i:7*i+3]) + 0.5*E(z[7*i+3:7*i+7])@p[7*i+3:7*i+7] for i in range(s.nb))
    def p_of(s, z, v):
        p = np.zeros(s.n)
        for i in range(s.nb):
            o=7*i; p[o:o+3]=s.m[i]*v[o:o+3]; q=z[o+3:o+7]; p[o+3:o+7]=4*G(q).T@s.J[i]@G(q)@v[o+3:o+7]
        return p

def Agen(s, z, xi):          # infinitesimal rotation about the origin acting on all bodies
    out = np.zeros(s.n)
    for i in range(s.nb):
        o = 7*i; out[o:o+3] = np.cross(xi, z[o:o+3]); out[o+3:o+7] = 0.5*E(z[o+3:o+7]).T@xi
    return out
def Dg_equiv(s, z, z1):
    zm = (z+z1)/2; D = s.Dg(zm); dz = z1-z; g0, g1 = s.g(z), s.g(z1); gbar = 0.5*(g0+g1)
    cols = [Agen(s, zm, e) for e in np.eye(3)]
    world = any(b < 0 for (_,_,b,_) in s.joints)
    if not world:
        for e in np.eye(3):
            t = np.zeros(s.n)
            for i in range(s.nb): t[7*i:7*i+3] = e
            cols.append(t)
    use_dz = np.linalg.norm(dz) > 1e-12
    if use_dz: cols.append(dz)
    B = np.array(cols).T
    r = s.nb
    for (a, Xa, b, Xb) in s.joints:
        rows = slice(r, r+3); gb = gbar[rows]
        target = [np.cross(e, gb) for e in np.eye(3)]
        if not world: target += [np.zeros(3)]*3
        if use_dz: target.append(g1[rows]-g0[rows])
        T = np.array(target).T                      # 3 x k
        D[rows] += (T - D[rows]@B) @ np.linalg.solve(B.T@B, B.T)
        r += 3
    return D
MBS.Dg_equiv = Dg_equiv
MBS.equiv = False
_old_parts = MBS.parts
def parts2(s, z, v, z1, v1, t, h):
    dqT, dvT, dV, f, Dgm = _old_parts(s, z, v, z1, v1, t, h)
    return dqT, dvT, dV, f, (s.Dg_equiv(z, z1) if s.equiv else Dgm)
MBS.parts = parts2
