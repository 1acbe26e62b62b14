def init():
    q = np.array([1.,0,0,0]); v = 0.5*G(q).T@np.array([10.,20,20]); return q, v, 4*G(q).T@J@G(q)@v
def step(q, v, p, h):
    def F(z):
        q1, l = z[:4], z[4]
        v1 = 2/h*(q1-q)-v; qm=(q+q1)/2; vm=(v+v1)/2
        Om = 0.5*(2*G(q)@v + 2*G(q1)@v1)
        p1 = 2*2*G(qm).T@J@Om - p
        return np.concatenate([p1-p+h*2*G(vm).T@J@Om + h*l*qm, [0.5*(q1@q1-1)]])
    z, k = newton(F, np.concatenate([q+h*v, [0.]]))
    q1 = z[:4]; v1 = 2/h*(q1-q)-v; qm=(q+q1)/2
    Om = 0.5*(2*G(q)@v + 2*G(q1)@v1); return q1, v1, 4*G(qm).T@J@Om - p, k
