# "EMB": midpoint Lie-Poisson / Cayley energy-momentum scheme in body velocities (Simo-Wong / Austin-Krishnaprasad-Wang type)
# per body: knot state x, q, u (world), W (body ang. vel.); unknowns x', w (=h*Wbar, Cayley parameter), multipliers
import numpy as np, sys
sys.path.insert(0,'/tmp/em_check'); from eml import hat, R, newton
def qmul(a,b): return np.concatenate([[a[0]*b[0]-a[1:]@b[1:]], a[0]*b[1:]+b[0]*a[1:]+np.cross(a[1:],b[1:])])
def cayq(w): c=np.concatenate([[1.],w/2]); return c/np.linalg.norm(c)
def cay(w): return np.linalg.solve(np.eye(3)-hat(w)/2, np.eye(3)+hat(w)/2)
class Body:
    def __init__(s,m,J): s.m,s.J=m,J
def body_res(b, x,q,u,W, x1,w, h, F, tau):
    # returns translational and rotational momentum residuals (impulse units)
    u1=2*(x1-x)/h-u; W1=2*w/h-W; Wb=(W+W1)/2
    return np.concatenate([b.m*(u1-u)-h*F, b.J@(W1-W)-np.cross(b.J@Wb,w)-h*tau]), u1, W1
