Jm=np.diag([6.,8.,3.]); Ji=np.linalg.inv(Jm)
def rhs(y):
    qq,Om=y[:4],y[4:]; return np.concatenate([0.5*qmul(qq,np.concatenate([[0],Om])), Ji@(-np.cross(Om,Jm@Om))])
y=np.concatenate([[1,0,0,0],[10.,20,20]]); dt=1e-5
for i in range(int(round(Tend/dt))):
    k1=rhs(y);k2=rhs(y+dt/2*k1);k3=rhs(y+dt/2*k2);k4=rhs(y+dt*k3); y=y+dt/6*(k1+2*k2+2*k3+k4)
qref=y[:4]/np.linalg.norm(y[:4]); b=Body(1.,Jm)
for hh in [0.02,0.01,0.005,0.0025]:
    q=np.array([1.,0,0,0]); W=np.array([10.,20,20])
    for n in range(int(round(Tend/hh))):
        def F(w): return Jm@(2*w/hh-2*W)-np.cross(Jm@(w/hh),w)
        w,_=newton(F,hh*W); q=qmul(q,cayq(w)); W=2*w/hh-W
    print("EMB order", hh, np.linalg.norm(R(q)-R(qref)))
