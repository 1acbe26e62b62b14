import numpy as np, sys
sys.path.insert(0,'/tmp/em_check'); from eml import *
J = np.diag([6.,8.,3.]); Ji=np.linalg.inv(J); Tend=float(sys.argv[1])
def qmul(a,b): return np.concatenate([[a[0]*b[0]-a[1:]@b[1:]], a[0]*b[1:]+b[0]*a[1:]+np.cross(a[1:],b[1:])])
def rhs(y):
    q,Om=y[:4],y[4:]; return np.concatenate([0.5*qmul(q,np.concatenate([[0],Om])), Ji@(-np.cross(Om,J@Om))])
y=np.concatenate([[1,0,0,0],[10.,20,20]]); dt=1e-5
for i in range(int(round(Tend/dt))):
    k1=rhs(y);k2=rhs(y+dt/2*k1);k3=rhs(y+dt/2*k2);k4=rhs(y+dt*k3); y=y+dt/6*(k1+2*k2+2*k3+k4)
qref=y[:4]/np.linalg.norm(y[:4])
exec(open('/tmp/em_check/free_body_lib.py').read())
for h in [0.02,0.01,0.005,0.0025]:
    q,v,p=init()
    for n in range(int(round(Tend/h))): q,v,p,_=step(q,v,p,h)
    print(h, np.linalg.norm(R(q)-R(qref)))
