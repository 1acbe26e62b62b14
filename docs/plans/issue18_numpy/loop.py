import numpy as np, sys
sys.path.insert(0,'/tmp/em_check'); from mbs import *
h=float(sys.argv[1]); Tend=float(sys.argv[2]); l=10.; m=10.
Js=m/12*(l*l+1); Jl=m/12*2
Jb=[np.diag([Js,Jl,Js]),np.diag([Jl,Js,Js]),np.diag([Js,Jl,Js]),np.diag([Jl,Js,Js])]
Y=lambda s: np.array([0,s*l/2,0.]); X=lambda s: np.array([s*l/2,0,0.])
joints=[(0,Y(1),1,X(1)),(1,X(-1),2,Y(1)),(2,Y(-1),3,X(-1)),(3,X(1),0,Y(-1))]
def tf(t): fm=100.; return 2*fm*t if t<=0.5 else (2*fm*(1-t) if t<=1 else 0.)
def fext(zm,t):
    f=np.zeros(28); f[0:3]=8*tf(t)*np.array([1,0,0.]); f[3:7]=2*E(zm[3:7]).T@(6*tf(t)*np.array([1,0,0.])); return f
S=MBS([m]*4,Jb,joints,fext=fext)
z=np.concatenate([X(1),[1,0,0,0],Y(1),[1,0,0,0],X(-1),[1,0,0,0],Y(-1),[1,0,0,0]]); v=np.zeros(28); p=S.p_of(z,v); t=0
Es=[];Ls=[];gs=[];Et=[]
for n in range(int(round(Tend/h))):
    z,v,p,k,lam=S.step(z,v,p,t,h); t+=h
    Es.append(S.energy(z,v,p)); Ls.append(S.L(z,p)); gs.append(np.max(np.abs(S.g(z)))); Et.append(S.Etot(z,v))
Es=np.array(Es); Ls=np.array(Ls); i1=int(round(1/h))
print("E(t=1.. end) range", Es[i1:].min(), Es[i1:].max(), "rel", (Es[i1:].max()-Es[i1:].min())/Es[i1:].mean())
print("L after t=1: max |L-L(1)|", np.max(np.abs(Ls[i1:]-Ls[i1-1])), "L(1)=", Ls[i1-1])
print("Etot(80) rel variation after t=1", (max(Et[i1:])-min(Et[i1:]))/np.mean(Et[i1:]), "max g", max(gs))
