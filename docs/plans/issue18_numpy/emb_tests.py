import numpy as np, sys
sys.path.insert(0,'/tmp/em_check'); from emb import *
test=sys.argv[1]; h=float(sys.argv[2]); Tend=float(sys.argv[3])
if test=='free':
    b=Body(1.,np.diag([6.,8.,3.])); x=np.zeros(3); q=np.array([1.,0,0,0]); u=np.zeros(3); W=np.array([10.,20,20])
    def step(x,q,u,W):
        def F(z):
            r,_,_=body_res(b,x,q,u,W,z[:3],z[3:],h,np.zeros(3),np.zeros(3)); return r
        z,k=newton(F,np.concatenate([x,h*W])); r,u1,W1=body_res(b,x,q,u,W,z[:3],z[3:],h,np.zeros(3),np.zeros(3))
        return z[:3],qmul(q,cayq(z[3:])),u1,W1
    En=lambda x,q,u,W: 0.5*W@b.J@W; Lf=lambda x,q,u,W: R(q)@b.J@W
    E0,L0=En(x,q,u,W),Lf(x,q,u,W); eE=eL=0
    for n in range(int(round(Tend/h))):
        x,q,u,W=step(x,q,u,W); eE=max(eE,abs(En(x,q,u,W)-E0)/E0); eL=max(eL,np.max(np.abs(Lf(x,q,u,W)-L0)))
    print(f"EMB free h={h}: relE={eE:.1e} |dL|={eL:.1e} q={q}")
if test=='top':
    rho,a=2700.,0.1; r=a/2; l=0.75*a; m=rho*np.pi*r*r*a/3; J0=3/80*m*(4*r*r+a*a); J3=3/10*m*r*r; gr=9.81
    th=np.pi/3; wp=10.; ws=m*gr*l/(J3*wp)+(J0+m*l*l-J3)/J3*wp*np.cos(th)
    b=Body(m,np.diag([J0,J0,J3])); pb=np.array([0,0,-l]); g=np.array([0,0,-gr])
    q=np.array([np.cos(th/2),np.sin(th/2),0,0]); d3=R(q)@[0,0,1.]; w0=np.array([0,0,wp])+ws*d3
    x=l*d3; u=np.cross(w0,x); W=R(q).T@w0
    def step(x,q,u,W):
        def F(z):
            x1,w,lam=z[:3],z[3:6],z[6:9]; q1=qmul(q,cayq(w)); Rb=(R(q)+R(q1))/2
            tau=np.linalg.solve(Rb, np.cross(Rb@pb,lam))       # momentum-consistent torque
            r,_,_=body_res(b,x,q,u,W,x1,w,h,m*g+lam,tau)
            return np.concatenate([r, x1+R(q1)@pb])
        z,k=newton(F,np.concatenate([x+h*u,h*W,np.zeros(3)])); x1,w,lam=z[:3],z[3:6],z[6:9]; q1=qmul(q,cayq(w))
        Rb=(R(q)+R(q1))/2; tau=np.linalg.solve(Rb,np.cross(Rb@pb,lam)); r,u1,W1=body_res(b,x,q,u,W,x1,w,h,m*g+lam,tau)
        return x1,q1,u1,W1
    En=lambda x,q,u,W: 0.5*m*u@u+0.5*W@b.J@W-m*g@x; L3=lambda x,q,u,W: (np.cross(x,m*u)+R(q)@b.J@W)[2]
    E0,L0=En(x,q,u,W),L3(x,q,u,W); eE=eL=0; t=0
    for n in range(int(round(Tend/h))):
        x,q,u,W=step(x,q,u,W); t+=h; eE=max(eE,abs(En(x,q,u,W)-E0)/E0); eL=max(eL,abs(L3(x,q,u,W)-L0)); ev=max(globals().get('ev',0),np.linalg.norm(u+np.cross(R(q)@W,R(q)@pb)))
    ref=np.array([l*np.sin(th)*np.sin(wp*t),-l*np.sin(th)*np.cos(wp*t),l*np.cos(th)])
    print(f"knot velocity-constraint |u+w x Rp|={ev:.2e} (|u|~{np.linalg.norm(u):.2f}) EMB top h={h} T={Tend}: relE(physical)={eE:.1e} |dL3|={eL:.1e} (L3={L0:.4e}) e121={np.linalg.norm(x-ref)/np.linalg.norm(ref):.3e} x3={x[2]:.5f}")
if test=='order':
    exec(open('/tmp/em_check/order_ref.py').read())
if test=='loop':
    l=10.; m=10.; Js=m/12*(l*l+1); Jl=m/12*2
    B=[Body(m,np.diag(d)) for d in ([Js,Jl,Js],[Jl,Js,Js],[Js,Jl,Js],[Jl,Js,Js])]
    Y=lambda s: np.array([0,s*l/2,0.]); X=lambda s: np.array([s*l/2,0,0.])
    joints=[(0,Y(1),1,X(1)),(1,X(-1),2,Y(1)),(2,Y(-1),3,X(-1)),(3,X(1),0,Y(-1))]
    def tf(t): fm=100.; return 2*fm*t if t<=0.5 else (2*fm*(1-t) if t<=1 else 0.)
    xs=[X(1),Y(1),X(-1),Y(-1)]; qs=[np.array([1.,0,0,0])]*4; us=[np.zeros(3)]*4; Ws=[np.zeros(3)]*4
    def step(xs,qs,us,Ws,t):
        def parts(z):
            x1=[z[6*i:6*i+3] for i in range(4)]; w=[z[6*i+3:6*i+6] for i in range(4)]; lam=z[24:36]
            q1=[qmul(qs[i],cayq(w[i])) for i in range(4)]; Rb=[(R(qs[i])+R(q1[i]))/2 for i in range(4)]
            Fc=[np.zeros(3) for i in range(4)]; Ts=[np.zeros(3) for i in range(4)]; cons=[]
            for j,(a,pa,bb,pbb) in enumerate(joints):
                L_=lam[3*j:3*j+3]; Fc[a]=Fc[a]+L_; Fc[bb]=Fc[bb]-L_
                Ts[a]=Ts[a]+np.cross(Rb[a]@pa,L_); Ts[bb]=Ts[bb]-np.cross(Rb[bb]@pbb,L_)
                cons.append(x1[a]+R(q1[a])@pa-x1[bb]-R(q1[bb])@pbb)
            f=tf(t+h/2); Fc[0]=Fc[0]+8*f*np.array([1.,0,0]); Ts[0]=Ts[0]+6*f*np.array([1.,0,0])  # spatial torque on bar 1
            res=[];out=[]
            for i in range(4):
                r_,u1,W1=body_res(B[i],xs[i],qs[i],us[i],Ws[i],x1[i],w[i],h,Fc[i],np.linalg.solve(Rb[i],Ts[i])); res.append(r_); out.append((x1[i],q1[i],u1,W1))
            return np.concatenate(res+cons),out
        z0=np.concatenate([np.concatenate([xs[i]+h*us[i],h*Ws[i]]) for i in range(4)]+[np.zeros(12)])
        z,k=newton(lambda z: parts(z)[0],z0); out=parts(z)[1]
        return [o[0] for o in out],[o[1] for o in out],[o[2] for o in out],[o[3] for o in out]
    En=lambda xs,qs,us,Ws: sum(0.5*m*us[i]@us[i]+0.5*Ws[i]@B[i].J@Ws[i] for i in range(4))
    Lf=lambda xs,qs,us,Ws: sum(np.cross(xs[i],m*us[i])+R(qs[i])@B[i].J@Ws[i] for i in range(4))
    t=0; Es=[];Ls=[]
    for n in range(int(round(Tend/h))):
        xs,qs,us,Ws=step(xs,qs,us,Ws,t); t+=h; Es.append(En(xs,qs,us,Ws)); Ls.append(Lf(xs,qs,us,Ws))
    i1=int(round(1/h)); Es=np.array(Es); Ls=np.array(Ls)
    print(f"EMB loop h={h}: E after t=1 rel range {(Es[i1:].max()-Es[i1:].min())/Es[i1:].mean():.1e} (E={Es[-1]:.4f}); |L-L(1)| max {np.max(np.abs(Ls[i1:]-Ls[i1-1])):.1e} L(1)={Ls[i1-1]}")
if test in ('disk','disk_nocorr','ball','disk_mid'):
    m,r=1.,0.5; e3=np.array([0,0,1.]); S=np.eye(3)[:2]; nb=np.array([1.,0,0]); gv=np.array([0,0,-9.81])
    J=np.diag([m*r*r/2,m*r*r/4,m*r*r/4]) if test!='ball' else np.diag([0.4*m*r*r,0.3*m*r*r,0.5*m*r*r])
    b=Body(m,J); Wm=np.diag([m,m,m,J[0,0],J[1,1],J[2,2]]); upright = test!='ball'
    x=np.array([0,0,r]); q=np.array([1.,0,0,0]); w0=np.array([2.,0,0.5]) if upright else np.array([2.,1.,0.7])
    u=np.cross(w0,r*e3); W=R(q).T@w0
    mu=lambda R_,u_,W_: S@(u_+r*np.cross(e3,R_@W_))
    def forces(q,q1,w,u,u1,W,W1,lam):
        Rb=(R(q)+R(q1))/2; Mb=np.hstack([S, S@(r*hat(e3)@Rb)])          # 2x6 midpoint row gradient
        nub=np.concatenate([(u+u1)/2,(W+W1)/2])
        if test not in ('disk_nocorr','disk_mid') and nub@Wm@nub>1e-300:
            Mb=Mb-np.outer(Mb@nub,Wm@nub)/(nub@Wm@nub)                    # force directions orthogonal to nu_bar
        f=Mb.T@lam[:2]; F=f[:3]+e3*lam[2]; tau=f[3:].copy()
        if upright:
            Rb2=(R(q)+R(q1))/2; tau+=np.linalg.solve(Rb2,np.cross(Rb2@nb,e3))*lam[3]
        return F+m*gv, tau
    nl=4 if upright else 3
    def step(x,q,u,W):
        def F_(z):
            x1,w,lam=z[:3],z[3:6],z[6:6+nl]; q1=qmul(q,cayq(w)); u1=2*(x1-x)/h-u; W1=2*w/h-W
            Fo,tau=forces(q,q1,w,u,u1,W,W1,lam); r_,_,_=body_res(b,x,q,u,W,x1,w,h,Fo,tau)
            c=[(S@((u+u1)/2+r*np.cross(e3,(R(q)+R(q1))/2@((W+W1)/2))) if test=='disk_mid' else mu(R(q1),u1,W1)),[x1[2]-r]]+([[e3@R(q1)@nb]] if upright else [])
            return np.concatenate([r_]+c)
        z,k=newton(F_,np.concatenate([x+h*u,h*W,np.zeros(nl)])); x1,w=z[:3],z[3:6]
        return x1,qmul(q,cayq(w)),2*(x1-x)/h-u,2*w/h-W
    En=lambda u,W: 0.5*m*u@u+0.5*W@J@W; E0=En(u,W); eE=ek=eh=0; N=int(round(Tend/h))
    for n in range(N):
        x,q,u,W=step(x,q,u,W)
        if n%(N//5)==0 or n==N-1: print(n, 'u',u,'w_world',R(q)@W, 'x',x, 'dist', np.linalg.norm(x[:2]-np.array([2.,0])))
        eE=max(eE,abs(En(u,W)-E0)/E0); ek=max(ek,np.max(np.abs(mu(R(q),u,W))))
        eh=max(eh,abs(x[2]-r),abs(e3@R(q)@nb) if upright else 0)
    print(f"EMB {test} h={h} steps={N}: relE={eE:.1e} knot-nonholonomic={ek:.1e} holonomic={eh:.1e} x={x}")
if test=='sleigh':
    m,a,Jz=1.,1.,8.; J=np.diag([4.,4.,Jz]); e3=np.array([0,0,1.]); ex=np.array([1.,0,0]); ey=np.array([0,1.,0])
    b=Body(m,J); Wm=np.diag([m,m,m,4.,4.,Jz]); pc=np.array([-a,0,0])      # blade contact in body frame (CoM ahead by a)
    rho1=float(sys.argv[4]); th=0.1; q=np.array([np.cos(th/2),0,0,np.sin(th/2)]); d=R(q)@ex
    thd=rho1/np.sqrt(Jz+m*a*a); vc=-0.6/np.sqrt(m)
    x=np.array([-5.,0,0])+a*d; u=vc*d+thd*np.cross(e3,a*d); W=np.array([0,0,thd])
    def row(R_,u_,W_):  # lateral velocity of the blade contact point
        nl=np.cross(e3,R_@ex); return nl@(u_+np.cross(R_@W_,R_@pc))
    def rowgrad(Rb):    # d row / d(u, W) at averaged rotation: nl.(u + (Rb W) x (Rb pc)) ; body-torque form via Rb^-1 mapping
        nl=np.cross(e3,Rb@ex); rc=Rb@pc
        return np.concatenate([nl, np.linalg.solve(Rb, np.cross(rc,nl))])   # force nl, spatial torque rc x nl -> body via Rb^-1
    def step(x,q,u,W):
        def F_(z):
            x1,w,lam=z[:3],z[3:6],z[6:10]; q1=qmul(q,cayq(w)); u1=2*(x1-x)/h-u; W1=2*w/h-W; Rb=(R(q)+R(q1))/2
            dvec=rowgrad(Rb); nub=np.concatenate([(u+u1)/2,(W+W1)/2])
            if nub@Wm@nub>1e-300: dvec=dvec-(dvec@nub)/(nub@Wm@nub)*(Wm@nub)
            Fo=dvec[:3]*lam[0]+e3*lam[1]; tau=dvec[3:]*lam[0]
            for k,e in enumerate((ex,ey)): tau=tau+np.linalg.solve(Rb,np.cross(Rb@e,e3))*lam[2+k]
            r_,_,_=body_res(b,x,q,u,W,x1,w,h,Fo,tau)
            return np.concatenate([r_,[row(R(q1),u1,W1), x1[2], e3@R(q1)@ex, e3@R(q1)@ey]])
        z,k=newton(F_,np.concatenate([x+h*u,h*W,np.zeros(4)])); x1,w=z[:3],z[3:6]
        return x1,qmul(q,cayq(w)),2*(x1-x)/h-u,2*w/h-W
    En=lambda u,W: 0.5*m*u@u+0.5*W@J@W; E0=En(u,W); eE=ek=0
    for n in range(int(round(Tend/h))):
        x,q,u,W=step(x,q,u,W); eE=max(eE,abs(En(u,W)-E0)/E0); ek=max(ek,abs(row(R(q),u,W)))
        if n%40==0: 
            dd=R(q)@ex; vcn=(u+np.cross(R(q)@W,R(q)@pc))@dd
            print(f"t={(n+1)*h:6.1f} rho1={np.sqrt(Jz+m*a*a)*W[2]: .3e} rho2={np.sqrt(m)*vcn: .7f} heading={np.arctan2(dd[1],dd[0]): .4f} contact={x[:2]-a*dd[:2]}")
    print(f"EMB sleigh h={h} rho1_0={rho1}: E0={E0:.7f} relE={eE:.1e} knot-knife-edge={ek:.1e}")
