import numpy as np, sys
sys.path.insert(0,'/tmp/em_check'); from eml import *
J = np.diag([6.,8.,3.]); h = float(sys.argv[1]) if len(sys.argv)>1 else 0.05; T=2.0
q = np.array([1.,0,0,0]); Om0 = np.array([10.,20,20]); v = 0.5*G(q).T@Om0
p = 4*G(q).T@J@G(q)@v
def step(q, v, p):
    def F(z):
        q1, l = z[:4], z[4]
        v1 = 2/h*(q1-q)-v; qm=(q+q1)/2; vm=(v+v1)/2
        Om = 0.5*(2*G(q)@v + 2*G(q1)@v1)
        dvT = 2*G(qm).T@J@Om; dqT = -2*G(vm).T@J@Om
        p1 = 2*dvT - p
        return np.concatenate([p1-p-h*dqT + h*l*qm, [0.5*(q1@q1-1)]])
    z, k = newton(F, np.concatenate([q+h*v, [0.]]))
    q1 = z[:4]; v1 = 2/h*(q1-q)-v; qm=(q+q1)/2; vm=(v+v1)/2
    Om = 0.5*(2*G(q)@v + 2*G(q1)@v1); p1 = 2*2*G(qm).T@J@Om - p
    return q1, v1, p1, k
def En(q,v,p): Om=2*G(q)@v; return p@v - 0.5*Om@J@Om
def Etot(q,v): Om=2*G(q)@v; return 0.5*Om@J@Om
E0=En(q,v,p); T0=Etot(q,v); L0=0.5*E(q)@p
eE=eT=eL=eq=eqv=0
for n in range(int(round(T/h))):
    q,v,p,k = step(q,v,p)
    eE=max(eE,abs(En(q,v,p)-E0)/E0); eT=max(eT,abs(Etot(q,v)-T0)/T0)
    eL=max(eL,np.max(np.abs(0.5*E(q)@p-L0))); eq=max(eq,abs(q@q-1)); eqv=max(eqv,abs(q@v))
print(f"h={h} relE_gen={eE:.2e} relE_tot(80)={eT:.2e} |dL|={eL:.2e} |q|-1={eq:.1e} q.v={eqv:.2e} q(T)={q}")
