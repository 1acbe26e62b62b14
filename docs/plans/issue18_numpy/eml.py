# tiny check of Kinon & Betsch (2024) EML, their (72)/(86), with the G-equivariant kinetic DG (87)-(88), their notation
import numpy as np
def hat(a): return np.array([[0,-a[2],a[1]],[a[2],0,-a[0]],[-a[1],a[0],0]])
def G(a): return np.hstack([-a[1:,None], a[0]*np.eye(3)-hat(a[1:])])
def E(a): return np.hstack([-a[1:,None], a[0]*np.eye(3)+hat(a[1:])])
def R(q): return E(q)@G(q).T
def newton(F, z, tol=1e-13, it=30):
    for k in range(it):
        r = F(z)
        if np.max(np.abs(r)) < tol: return z, k
        n = len(z); Jm = np.zeros((len(r), n)); e = 1e-7
        for i in range(n):
            dz = np.zeros(n); dz[i] = e; Jm[:, i] = (F(z+dz)-F(z-dz))/(2*e)
        z = z - np.linalg.solve(Jm, r)
    return z, it
