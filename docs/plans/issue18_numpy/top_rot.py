import numpy as np, sys
sys.path.insert(0,'/tmp/em_check'); from eml import *
h=float(sys.argv[1]); Tend=float(sys.argv[2])
rho,a=2700.,0.1; r=a/2; l=0.75*a; m=rho*np.pi*r*r*a/3; J0=3/80*m*(4*r*r+a*a); J3=3/10*m*r*r; gr=9.81
J=np.diag([J0+m*l*l,J0+m*l*l,J3]); th=np.pi/3; wp=10.; ws=m*gr*l/(J3*wp)+(J0+m*l*l-J3)/J3*wp*np.cos(th)
D=np.diag([1.,-1,-1,1]); V=lambda q: m*gr*l*q@D@q
q=np.array([np.cos(th/2),np.sin(th/2),0,0]); w0=np.array([0,0,wp])+ws*(R(q)@[0,0,1.]); v=0.5*E(q).T@w0; p=4*G(q).T@J@G(q)@v
def step(q,v,p):
    def F(z):
        q1,lm=z[:4],z[4]; v1=2/h*(q1-q)-v; qm=(q+q1)/2; vm=(v+v1)/2; Om=G(q)@v+G(q1)@v1
        p1=4*G(qm).T@J@Om-p; return np.concatenate([p1-p+h*2*G(vm).T@J@Om+h*2*m*gr*l*D@qm+h*lm*qm,[0.5*(q1@q1-1)]])
    z,k=newton(F,np.concatenate([q+h*v,[0.]])); q1=z[:4]; v1=2/h*(q1-q)-v; qm=(q+q1)/2
    return q1,v1,4*G(qm).T@J@(G(q)@v+G(q1)@v1)-p
En=lambda q,v,p: p@v-0.5*(2*G(q)@v)@J@(2*G(q)@v)+V(q); E0=En(q,v,p); L0=(0.5*E(q)@p)[2]; eE=eL=0; t=0
for n in range(int(round(Tend/h))):
    q,v,p=step(q,v,p); t+=h; eE=max(eE,abs(En(q,v,p)-E0)/E0); eL=max(eL,abs((0.5*E(q)@p)[2]-L0))
x=l*R(q)@[0,0,1.]; ref=np.array([l*np.sin(th)*np.sin(wp*t),-l*np.sin(th)*np.cos(wp*t),l*np.cos(th)])
print(f"rot-coords h={h} T={Tend} relE={eE:.1e} dL3={eL:.1e} L3={L0:.4e} e121={np.linalg.norm(x-ref)/np.linalg.norm(ref):.3e} x3={x[2]:.5f}")
