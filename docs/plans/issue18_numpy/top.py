import numpy as np, sys
sys.path.insert(0,'/tmp/em_check'); from mbs import *
h=float(sys.argv[1]); Tend=float(sys.argv[2])
rho,a=2700.,0.1; r=a/2; l=0.75*a; m=rho*np.pi*r*r*a/3; J1=3/80*m*(4*r*r+a*a); J3=3/10*m*r*r; gr=9.81
th=np.pi/3; wp=10.; ws=m*gr*l/(J3*wp)+(J1+m*l*l-J3)/J3*wp*np.cos(th)
q0=np.array([np.cos(th/2),np.sin(th/2),0,0]); d3=R(q0)@[0,0,1.]; w0=wp*np.array([0,0,1.])+ws*d3
x0=l*d3; u0=np.cross(w0,x0); Om0=R(q0).T@w0
sysm=MBS([m],[np.diag([J1,J1,J3])],[(0,np.array([0,0,-l]),-1,np.zeros(3))],grav=np.array([0,0,-gr])); sysm.equiv = len(sys.argv)>3
z=np.concatenate([x0,q0]); v=np.concatenate([u0,0.5*G(q0).T@Om0]); p=sysm.p_of(z,v)
E0=sysm.energy(z,v,p); L0=sysm.L(z,p); eE=eL=eg=0; t=0
for n in range(int(round(Tend/h))):
    z,v,p,k,lam=sysm.step(z,v,p,t,h); t+=h
    eE=max(eE,abs(sysm.energy(z,v,p)-E0)/abs(E0)); eT=max(globals().get("eT",0),abs(sysm.Etot(z,v)-E0)/abs(E0)); eL=max(eL,abs(sysm.L(z,p)[2]-L0[2])); eg=max(eg,np.max(np.abs(sysm.g(z))))
phi_ref=np.array([l*np.sin(th)*np.sin(wp*t), -l*np.sin(th)*np.cos(wp*t), l*np.cos(th)])
print(f"relEtot={eT:.2e} h={h} ws={ws:.4f} m={m:.5f} J={J1:.5e} relE={eE:.2e} |dL3|={eL:.2e} (L3={L0[2]:.4e}) g={eg:.1e} e121={np.linalg.norm(z[:3]-phi_ref)/np.linalg.norm(phi_ref):.3e} x3={z[2]:.6f}")
