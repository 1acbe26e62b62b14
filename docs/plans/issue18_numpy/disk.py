# upright rolling disk in maximal coordinates, Kinon & Betsch (2024) EML + midpoint nonholonomic rows (Celledoni et al. 2019, "Gonzalez-F" style)
import numpy as np, sys
sys.path.insert(0,'/tmp/em_check'); from eml import *
h=float(sys.argv[1]); N=int(sys.argv[2])
m,r=1.,0.5; J=np.diag([m*r*r/2,m*r*r/4,m*r*r/4]); nb=np.array([1.,0,0]); e3=np.array([0,0,1.]); S=np.eye(3)[:2]
def dRX(q,X):
    Xb=np.vstack([np.concatenate([[0],-X]),np.hstack([X[:,None],-hat(X)])]); return 2*E(q)@Xb
def hol(z): x,q=z[:3],z[3:]; return np.array([0.5*(q@q-1), x[2]-r, e3@R(q)@nb])
def Dhol(z):
    x,q=z[:3],z[3:]; D=np.zeros((3,7)); D[0,3:]=q; D[1,2]=1; D[2,3:]=e3@dRX(q,nb); return D
def mu(z):   # rows c = S (xdot + r e3 x (2 E(q) qdot)) = mu(z) zdot
    q=z[3:]; M=np.zeros((2,7)); M[:,:3]=S; M[:,3:]=S@(r*hat(e3)@(2*E(q))); return M
def step(z,v,p):
    def F(w):
        z1,lam,nu=w[:7],w[7:10],w[10:12]; v1=2/h*(z1-z)-v; zm=(z+z1)/2; vm=(v+v1)/2
        Om=G(z[3:])@v[3:]+G(z1[3:])@v1[3:]
        dvT=np.concatenate([m*vm[:3],2*G(zm[3:]).T@J@Om]); dqT=np.concatenate([np.zeros(3),-2*G(vm[3:]).T@J@Om])
        p1=2*dvT-p
        return np.concatenate([p1-p-h*dqT+h*Dhol(zm).T@lam+h*mu(zm).T@nu, hol(z1), mu(zm)@((z1-z)/h)])
    w,k=newton(F,np.concatenate([z+h*v,np.zeros(5)]))
    z1=w[:7]; v1=2/h*(z1-z)-v; zm=(z+z1)/2; Om=G(z[3:])@v[3:]+G(z1[3:])@v1[3:]
    p1=2*np.concatenate([m*(v[:3]+v1[:3])/2,2*G(zm[3:]).T@J@Om])-p
    return z1,v1,p1,k
def En(z,v,p): Om=2*G(z[3:])@v[3:]; return p@v-0.5*m*v[:3]@v[:3]-0.5*Om@J@Om
def Et(z,v): Om=2*G(z[3:])@v[3:]; return 0.5*m*v[:3]@v[:3]+0.5*Om@J@Om
q0=np.array([1.,0,0,0]); w0=np.array([2.,0,0.5]); x0=np.array([0,0,r]); u0=np.cross(w0,r*e3)
z=np.concatenate([x0,q0]); v=np.concatenate([u0,0.5*E(q0).T@w0]); p=np.concatenate([m*u0,4*G(q0).T@J@G(q0)@v[3:]])
E0=En(z,v,p); eE=eT=ek=em=eh=0; zp=z
for n in range(N):
    if n%200==0: print(n, En(z,v,p), np.max(np.abs(mu(z)@v)), z[:3], flush=True)
    zp=z; z,v,p,k=step(z,v,p)
    eE=max(eE,abs(En(z,v,p)-E0)/E0); eT=max(eT,abs(Et(z,v)-E0)/E0); ek=max(ek,np.max(np.abs(mu(z)@v)))
    em=max(em,np.max(np.abs(mu((z+zp)/2)@(z-zp)/h))); eh=max(eh,np.max(np.abs(hol(z))))
print(f"h={h} N={N} relE={eE:.1e} relEtot={eT:.1e} midpoint-constraint={em:.1e} knot-constraint={ek:.1e} holonomic={eh:.1e} x={z[:3]}")
