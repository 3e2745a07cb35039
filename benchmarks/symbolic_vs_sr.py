"""Symbolic Pursuit against Operon and gplearn on equations of the Feynman database.

The equations: the 99 main equations of the Feynman Symbolic Regression Database (Udrescu and
Tegmark, "AI Feynman", 2019; the ground-truth track of SRBench; not the 20 bonus ones), or
with ``--equations sample`` the 32 of them drawn once with
``random.Random(2020).sample(sorted(names), 32)``, which earlier runs measured; each formula
and its variable ranges are copied from the dataset's ``metadata.yaml`` in PMLB
(github.com/EpistasisLab/pmlb, ``datasets/feynman_*``).  The data are regenerated from them, as
the published files are not used: per equation 2,000 rows uniform in the ranges (``np.random.default_rng`` seeded by the
equation's name), the first 1,500 to fit on and the last 500 to test on, the target the exact
formula (no noise).

The methods, each on the same rows:

* **interp**: ``SymbolicPursuitRegressor(random_state=0)`` with its defaults, on a DataFrame
  with the variables' names; fitted in this process (one BLAS thread, as the estimator runs).
* **Operon** (pyoperon 0.6.2): ``pyoperon.sklearn.SymbolicRegressor`` with its defaults, one
  thread, ``max_time=60`` s, ``random_state=0``.
* **gplearn** (0.4.3): ``SymbolicRegressor(population_size=1000, generations=20)``, the
  functions add, sub, mul, div, sqrt, log, sin, cos, neg, inv, ``random_state=0``, one job, on
  the standardised target (with its default parsimony a raw target of small values is fitted
  by a constant); its formula is the program scaled back.

The peers are never interp's dependencies: the script installs them into their own virtual
environment (``--peer-venv``, default /tmp/interp-bench-sr/venv) and runs each fit there in a
child process under ``OMP_NUM_THREADS=1``.  Their results are cached by the rows and the
settings (``--refresh-peers`` fits them again), since they do not depend on interp's code.

Measured per equation and in medians:

* test R^2, and whether it is above 0.999;
* size: the nodes of the model's sympy expression (``sympy.preorder_traversal``: every symbol,
  number and operation counts one), one counter for all methods.  interp's expression is the
  printed formula with each argument u_k replaced by its definition (the clip of an argument
  to its training range, a domain, is not counted); Operon's is its model string, gplearn's its
  program (protected division, square root and logarithm read as x/y, sqrt(|x|), log(|x|));
* exact recovery up to constants: every float of the model's expression is made a free
  parameter, the parameters are refitted to the true values on the training rows
  (Levenberg-Marquardt from the model's own values), and the form counts as the law when it
  then reaches 1 - R^2 < 1e-12 on the test rows.  So round numbers (0.08 for 1/(4 pi)) do not
  count against a form, and a close approximation of another form does not count for it;
* fit time (seconds of wall time of ``fit``), and per equation our time over Operon's;
* per structure of the law (``STRUCTURES``), the counts at R^2 > 0.999 and the equations
  interp misses.  The pursuit writes one term w * P(x) * g(u) with P and u products of powers
  of the variables (P may be 1, g(u) may be a power: a product of powers is one such term), so
  the structures are: a product of powers; one such term whose value has one sign (its
  logarithm shows P and u's exponents) or takes both signs (only its magnitude's logarithm
  does: p*cos(theta)/r**2); a sum of up to three such terms, which the greedy steps must find
  one at a time; and a function of differences (x2 - x1 under a square root, omega - omega_0
  inside a sine) or of several such arguments at once, which no sum of three such terms
  writes exactly.

Run (the peers' fits are cached, so a second run fits interp only; ``--cached-peers`` takes the
peers from the cache alone, an equation missing there marked "not run"):

    python benchmarks/symbolic_vs_sr.py [--equations sample|all] [--only I_12_2,II_34_11] [--page]
                                        [--refresh-peers | --cached-peers] [--peer-venv PATH]
                                        [--no-peers] [--peers-only [--peer NAME]]
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import subprocess
import sys
import time
import zlib
from pathlib import Path

import numpy as np

SAMPLE = (  # (name, formula, variable ranges): PMLB's feynman_<name>/metadata.yaml
    ("III_15_14", "(h/(2*pi))**2/(2*E_n*d**2)", {"h": (1, 5), "E_n": (1, 5), "d": (1, 5)}),
    ("III_15_27", "2*pi*alpha/(n*d)", {"alpha": (1, 5), "n": (1, 5), "d": (1, 5)}),
    ("III_4_33", "(h/(2*pi))*omega/(exp((h/(2*pi))*omega/(kb*T))-1)",
     {"h": (1, 5), "omega": (1, 5), "kb": (1, 5), "T": (1, 5)}),
    ("III_8_54", "sin(E_n*t/(h/(2*pi)))**2", {"E_n": (1, 2), "t": (1, 2), "h": (1, 4)}),
    ("II_11_3", "q*Ef/(m*(omega_0**2-omega**2))",
     {"q": (1, 3), "Ef": (1, 3), "m": (1, 3), "omega_0": (3, 5), "omega": (1, 2)}),
    ("II_13_17", "1/(4*pi*epsilon*c**2)*2*I/r", {"epsilon": (1, 5), "c": (1, 5), "I": (1, 5), "r": (1, 5)}),
    ("II_13_34", "rho_c_0*v/sqrt(1-v**2/c**2)", {"rho_c_0": (1, 5), "v": (1, 2), "c": (3, 10)}),
    ("II_24_17", "sqrt(omega**2/c**2-pi**2/d**2)", {"omega": (4, 6), "c": (1, 2), "d": (2, 4)}),
    ("II_27_16", "epsilon*c*Ef**2", {"epsilon": (1, 5), "c": (1, 5), "Ef": (1, 5)}),
    ("II_34_11", "g_*q*B/(2*m)", {"g_": (1, 5), "q": (1, 5), "B": (1, 5), "m": (1, 5)}),
    ("II_6_15a", "p_d/(4*pi*epsilon)*3*z/r**5*sqrt(x**2+y**2)",
     {"epsilon": (1, 3), "p_d": (1, 3), "r": (1, 3), "x": (1, 3), "y": (1, 3), "z": (1, 3)}),
    ("II_8_7", "3/5*q**2/(4*pi*epsilon*d)", {"q": (1, 5), "epsilon": (1, 5), "d": (1, 5)}),
    ("I_12_2", "q1*q2*r/(4*pi*epsilon*r**3)", {"q1": (1, 5), "q2": (1, 5), "epsilon": (1, 5), "r": (1, 5)}),
    ("I_12_4", "q1*r/(4*pi*epsilon*r**3)", {"q1": (1, 5), "epsilon": (1, 5), "r": (1, 5)}),
    ("I_13_4", "1/2*m*(v**2+u**2+w**2)", {"m": (1, 5), "v": (1, 5), "u": (1, 5), "w": (1, 5)}),
    ("I_14_3", "m*g*z", {"m": (1, 5), "g": (1, 5), "z": (1, 5)}),
    ("I_14_4", "1/2*k_spring*x**2", {"k_spring": (1, 5), "x": (1, 5)}),
    ("I_15_10", "m_0*v/sqrt(1-v**2/c**2)", {"m_0": (1, 5), "v": (1, 2), "c": (3, 10)}),
    ("I_15_3t", "(t-u*x/c**2)/sqrt(1-u**2/c**2)", {"x": (1, 5), "c": (3, 10), "u": (1, 2), "t": (1, 5)}),
    ("I_16_6", "(u+v)/(1+u*v/c**2)", {"c": (1, 5), "v": (1, 5), "u": (1, 5)}),
    ("I_26_2", "arcsin(n*sin(theta2))", {"n": (0, 1), "theta2": (1, 5)}),
    ("I_27_6", "1/(1/d1+n/d2)", {"d1": (1, 5), "d2": (1, 5), "n": (1, 5)}),
    ("I_34_14", "(1+v/c)/sqrt(1-v**2/c**2)*omega_0", {"c": (3, 10), "v": (1, 2), "omega_0": (1, 5)}),
    ("I_34_27", "(h/(2*pi))*omega", {"omega": (1, 5), "h": (1, 5)}),
    ("I_34_8", "q*v*B/p", {"q": (1, 5), "v": (1, 5), "B": (1, 5), "p": (1, 5)}),
    ("I_39_11", "1/(gamma-1)*pr*V", {"gamma": (2, 5), "pr": (1, 5), "V": (1, 5)}),
    ("I_40_1", "n_0*exp(-m*g*x/(kb*T))",
     {"n_0": (1, 5), "m": (1, 5), "x": (1, 5), "T": (1, 5), "g": (1, 5), "kb": (1, 5)}),
    ("I_43_31", "mob*kb*T", {"mob": (1, 5), "T": (1, 5), "kb": (1, 5)}),
    ("I_48_2", "m*c**2/sqrt(1-v**2/c**2)", {"m": (1, 5), "v": (1, 2), "c": (3, 10)}),
    ("I_50_26", "x1*(cos(omega*t)+alpha*cos(omega*t)**2)", {"x1": (1, 3), "omega": (1, 3), "t": (1, 3), "alpha": (1, 3)}),
    ("I_8_14", "sqrt((x2-x1)**2+(y2-y1)**2)", {"x1": (1, 5), "x2": (1, 5), "y1": (1, 5), "y2": (1, 5)}),
    ("I_9_18", "G*m1*m2/((x2-x1)**2+(y2-y1)**2+(z2-z1)**2)",
     {"m1": (1, 2), "m2": (1, 2), "G": (1, 2), "x1": (3, 4), "x2": (1, 2), "y1": (3, 4), "y2": (1, 2), "z1": (3, 4),
      "z2": (1, 2)}),
)
OTHERS = (  # the other 67 main equations, likewise, in the order of their names
    ("III_10_19", "mom*sqrt(Bx**2+By**2+Bz**2)", {"mom": (1, 5), "Bx": (1, 5), "By": (1, 5), "Bz": (1, 5)}),
    ("III_12_43", "n*(h/(2*pi))", {"n": (1, 5), "h": (1, 5)}),
    ("III_13_18", "2*E_n*d**2*k/(h/(2*pi))", {"E_n": (1, 5), "d": (1, 5), "k": (1, 5), "h": (1, 5)}),
    ("III_14_14", "I_0*(exp(q*Volt/(kb*T))-1)", {"I_0": (1, 5), "q": (1, 2), "Volt": (1, 2), "kb": (1, 2), "T": (1, 2)}),
    ("III_15_12", "2*U*(1-cos(k*d))", {"U": (1, 5), "k": (1, 5), "d": (1, 5)}),
    ("III_17_37", "beta*(1+alpha*cos(theta))", {"beta": (1, 5), "alpha": (1, 5), "theta": (1, 5)}),
    ("III_19_51", "-m*q**4/(2*(4*pi*epsilon)**2*(h/(2*pi))**2)*(1/n**2)", {"m": (1, 5), "q": (1, 5), "h": (1, 5), "n": (1, 5), "epsilon": (1, 5)}),
    ("III_21_20", "-rho_c_0*q*A_vec/m", {"rho_c_0": (1, 5), "q": (1, 5), "A_vec": (1, 5), "m": (1, 5)}),
    ("III_4_32", "1/(exp((h/(2*pi))*omega/(kb*T))-1)", {"h": (1, 5), "omega": (1, 5), "kb": (1, 5), "T": (1, 5)}),
    ("III_7_38", "2*mom*B/(h/(2*pi))", {"mom": (1, 5), "B": (1, 5), "h": (1, 5)}),
    ("III_9_52", "(p_d*Ef*t/(h/(2*pi)))*sin((omega-omega_0)*t/2)**2/((omega-omega_0)*t/2)**2", {"p_d": (1, 3), "Ef": (1, 3), "t": (1, 3), "h": (1, 3), "omega": (1, 5), "omega_0": (1, 5)}),
    ("II_10_9", "sigma_den/epsilon*1/(1+chi)", {"sigma_den": (1, 5), "epsilon": (1, 5), "chi": (1, 5)}),
    ("II_11_20", "n_rho*p_d**2*Ef/(3*kb*T)", {"n_rho": (1, 5), "p_d": (1, 5), "Ef": (1, 5), "kb": (1, 5), "T": (1, 5)}),
    ("II_11_27", "n*alpha/(1-(n*alpha/3))*epsilon*Ef", {"n": (0, 1), "alpha": (0, 1), "epsilon": (1, 2), "Ef": (1, 2)}),
    ("II_11_28", "1+n*alpha/(1-(n*alpha/3))", {"n": (0, 1), "alpha": (0, 1)}),
    ("II_13_23", "rho_c_0/sqrt(1-v**2/c**2)", {"rho_c_0": (1, 5), "v": (1, 2), "c": (3, 10)}),
    ("II_15_4", "-mom*B*cos(theta)", {"mom": (1, 5), "B": (1, 5), "theta": (1, 5)}),
    ("II_15_5", "-p_d*Ef*cos(theta)", {"p_d": (1, 5), "Ef": (1, 5), "theta": (1, 5)}),
    ("II_21_32", "q/(4*pi*epsilon*r*(1-v/c))", {"q": (1, 5), "epsilon": (1, 5), "r": (1, 5), "v": (1, 2), "c": (3, 10)}),
    ("II_27_18", "epsilon*Ef**2", {"epsilon": (1, 5), "Ef": (1, 5)}),
    ("II_2_42", "kappa*(T2-T1)*A/d", {"kappa": (1, 5), "T1": (1, 5), "T2": (1, 5), "A": (1, 5), "d": (1, 5)}),
    ("II_34_2", "q*v*r/2", {"q": (1, 5), "v": (1, 5), "r": (1, 5)}),
    ("II_34_29a", "q*h/(4*pi*m)", {"q": (1, 5), "h": (1, 5), "m": (1, 5)}),
    ("II_34_29b", "g_*mom*B*Jz/(h/(2*pi))", {"g_": (1, 5), "h": (1, 5), "Jz": (1, 5), "mom": (1, 5), "B": (1, 5)}),
    ("II_34_2a", "q*v/(2*pi*r)", {"q": (1, 5), "v": (1, 5), "r": (1, 5)}),
    ("II_35_18", "n_0/(exp(mom*B/(kb*T))+exp(-mom*B/(kb*T)))", {"n_0": (1, 3), "kb": (1, 3), "T": (1, 3), "mom": (1, 3), "B": (1, 3)}),
    ("II_35_21", "n_rho*mom*tanh(mom*B/(kb*T))", {"n_rho": (1, 5), "mom": (1, 5), "B": (1, 5), "kb": (1, 5), "T": (1, 5)}),
    ("II_36_38", "mom*H/(kb*T)+(mom*alpha)/(epsilon*c**2*kb*T)*M", {"mom": (1, 3), "H": (1, 3), "kb": (1, 3), "T": (1, 3), "alpha": (1, 3), "epsilon": (1, 3), "c": (1, 3), "M": (1, 3)}),
    ("II_37_1", "mom*(1+chi)*B", {"mom": (1, 5), "B": (1, 5), "chi": (1, 5)}),
    ("II_38_14", "Y/(2*(1+sigma))", {"Y": (1, 5), "sigma": (1, 5)}),
    ("II_38_3", "Y*A*x/d", {"Y": (1, 5), "A": (1, 5), "d": (1, 5), "x": (1, 5)}),
    ("II_3_24", "Pwr/(4*pi*r**2)", {"Pwr": (1, 5), "r": (1, 5)}),
    ("II_4_23", "q/(4*pi*epsilon*r)", {"q": (1, 5), "epsilon": (1, 5), "r": (1, 5)}),
    ("II_6_11", "1/(4*pi*epsilon)*p_d*cos(theta)/r**2", {"epsilon": (1, 3), "p_d": (1, 3), "theta": (1, 3), "r": (1, 3)}),
    ("II_6_15b", "p_d/(4*pi*epsilon)*3*cos(theta)*sin(theta)/r**3", {"epsilon": (1, 3), "p_d": (1, 3), "theta": (1, 3), "r": (1, 3)}),
    ("II_8_31", "epsilon*Ef**2/2", {"epsilon": (1, 5), "Ef": (1, 5)}),
    ("I_10_7", "m_0/sqrt(1-v**2/c**2)", {"m_0": (1, 5), "v": (1, 2), "c": (3, 10)}),
    ("I_11_19", "x1*y1+x2*y2+x3*y3", {"x1": (1, 5), "x2": (1, 5), "x3": (1, 5), "y1": (1, 5), "y2": (1, 5), "y3": (1, 5)}),
    ("I_12_1", "mu*Nn", {"mu": (1, 5), "Nn": (1, 5)}),
    ("I_12_11", "q*(Ef+B*v*sin(theta))", {"q": (1, 5), "Ef": (1, 5), "B": (1, 5), "v": (1, 5), "theta": (1, 5)}),
    ("I_12_5", "q2*Ef", {"q2": (1, 5), "Ef": (1, 5)}),
    ("I_13_12", "G*m1*m2*(1/r2-1/r1)", {"m1": (1, 5), "m2": (1, 5), "r1": (1, 5), "r2": (1, 5), "G": (1, 5)}),
    ("I_15_3x", "(x-u*t)/sqrt(1-u**2/c**2)", {"x": (5, 10), "u": (1, 2), "c": (3, 20), "t": (1, 2)}),
    ("I_18_12", "r*F*sin(theta)", {"r": (1, 5), "F": (1, 5), "theta": (0, 5)}),
    ("I_18_14", "m*r*v*sin(theta)", {"m": (1, 5), "r": (1, 5), "v": (1, 5), "theta": (1, 5)}),
    ("I_18_4", "(m1*r1+m2*r2)/(m1+m2)", {"m1": (1, 5), "m2": (1, 5), "r1": (1, 5), "r2": (1, 5)}),
    ("I_24_6", "1/2*m*(omega**2+omega_0**2)*1/2*x**2", {"m": (1, 3), "omega": (1, 3), "omega_0": (1, 3), "x": (1, 3)}),
    ("I_25_13", "q/C", {"q": (1, 5), "C": (1, 5)}),
    ("I_29_16", "sqrt(x1**2+x2**2-2*x1*x2*cos(theta1-theta2))", {"x1": (1, 5), "x2": (1, 5), "theta1": (1, 5), "theta2": (1, 5)}),
    ("I_29_4", "omega/c", {"omega": (1, 10), "c": (1, 10)}),
    ("I_30_3", "Int_0*sin(n*theta/2)**2/sin(theta/2)**2", {"Int_0": (1, 5), "theta": (1, 5), "n": (1, 5)}),
    ("I_30_5", "arcsin(lambd/(n*d))", {"lambd": (1, 2), "d": (2, 5), "n": (1, 5)}),
    ("I_32_17", "(1/2*epsilon*c*Ef**2)*(8*pi*r**2/3)*(omega**4/(omega**2-omega_0**2)**2)", {"epsilon": (1, 2), "c": (1, 2), "Ef": (1, 2), "r": (1, 2), "omega": (1, 2), "omega_0": (3, 5)}),
    ("I_32_5", "q**2*a**2/(6*pi*epsilon*c**3)", {"q": (1, 5), "a": (1, 5), "epsilon": (1, 5), "c": (1, 5)}),
    ("I_34_1", "omega_0/(1-v/c)", {"c": (3, 10), "v": (1, 2), "omega_0": (1, 5)}),
    ("I_37_4", "I1+I2+2*sqrt(I1*I2)*cos(delta)", {"I1": (1, 5), "I2": (1, 5), "delta": (1, 5)}),
    ("I_38_12", "4*pi*epsilon*(h/(2*pi))**2/(m*q**2)", {"m": (1, 5), "q": (1, 5), "h": (1, 5), "epsilon": (1, 5)}),
    ("I_39_1", "3/2*pr*V", {"pr": (1, 5), "V": (1, 5)}),
    ("I_39_22", "n*kb*T/V", {"n": (1, 5), "T": (1, 5), "V": (1, 5), "kb": (1, 5)}),
    ("I_41_16", "h/(2*pi)*omega**3/(pi**2*c**2*(exp((h/(2*pi))*omega/(kb*T))-1))", {"omega": (1, 5), "T": (1, 5), "h": (1, 5), "kb": (1, 5), "c": (1, 5)}),
    ("I_43_16", "mu_drift*q*Volt/d", {"mu_drift": (1, 5), "q": (1, 5), "Volt": (1, 5), "d": (1, 5)}),
    ("I_43_43", "1/(gamma-1)*kb*v/A", {"gamma": (2, 5), "kb": (1, 5), "A": (1, 5), "v": (1, 5)}),
    ("I_44_4", "n*kb*T*ln(V2/V1)", {"n": (1, 5), "kb": (1, 5), "T": (1, 5), "V1": (1, 5), "V2": (1, 5)}),
    ("I_47_23", "sqrt(gamma*pr/rho)", {"gamma": (1, 5), "pr": (1, 5), "rho": (1, 5)}),
    ("I_6_2", "exp(-(theta/sigma)**2/2)/(sqrt(2*pi)*sigma)", {"sigma": (1, 3), "theta": (1, 3)}),
    ("I_6_2a", "exp(-theta**2/2)/sqrt(2*pi)", {"theta": (1, 3)}),
    ("I_6_2b", "exp(-((theta-theta1)/sigma)**2/2)/(sqrt(2*pi)*sigma)", {"sigma": (1, 3), "theta": (1, 3), "theta1": (1, 3)}),
)
EQUATIONS = SAMPLE + OTHERS
# each equation's structure, as the pursuit's kinds of term see it: one term w * P(x) * g(u) with P and u
# products of powers of the variables (P = 1 or g = u**t allowed), a sum of such terms, or neither
STRUCTURES = {
    "a product of powers": (
        "II_13_17 II_27_16 II_34_11 II_8_7 I_12_2 I_12_4 I_14_3 I_14_4 I_34_27 I_34_8 I_43_31 III_15_14 III_15_27 "
        "III_12_43 III_13_18 III_19_51 III_21_20 III_7_38 II_11_20 II_27_18 II_34_2 II_34_29a II_34_29b II_34_2a "
        "II_38_3 II_3_24 II_4_23 II_8_31 I_12_1 I_12_5 I_25_13 I_29_4 I_32_5 I_38_12 I_39_1 I_39_22 I_43_16 "
        "I_47_23").split(),
    "powers times g(powers), of one sign": (
        "III_4_33 III_8_54 II_11_3 II_13_34 II_24_17 II_6_15a I_15_10 I_27_6 I_34_14 I_39_11 I_40_1 I_48_2 "
        "III_14_14 III_15_12 III_4_32 II_10_9 II_11_27 II_11_28 II_13_23 II_21_32 II_35_18 II_35_21 II_37_1 "
        "II_38_14 I_10_7 I_24_6 I_30_5 I_32_17 I_34_1 I_41_16 I_43_43 I_6_2 I_6_2a").split(),
    "powers times g(powers), of both signs": "II_15_4 II_15_5 II_2_42 II_6_11 II_6_15b I_13_12 I_18_12 I_18_14 I_44_4"
    .split(),
    "a sum of such terms": "I_13_4 I_15_3t I_50_26 III_17_37 II_36_38 I_11_19 I_12_11 I_15_3x I_37_4".split(),
    "a function of differences or of several arguments at once": (
        "I_16_6 I_26_2 I_8_14 I_9_18 III_10_19 III_9_52 I_18_4 I_29_16 I_30_3 I_6_2b").split(),
}
N_TRAIN, N_TEST = 1500, 500
GOOD_R2 = 0.999
EXACT_NMSE = 1e-12  # 1 - R^2 on the test rows of the form with its constants refitted
OPERON_SECONDS = 60
PEER_VENV = Path("/tmp/interp-bench-sr/venv")
PEER_PACKAGES = ("pyoperon==0.6.2", "gplearn==0.4.3", "scikit-learn", "sympy")
SINGLE_THREAD = {k: "1" for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
METHODS = ("interp", "operon", "gplearn")


# --------------------------------------------------------------------------- shared by all sides
def sympy_formula(formula: str, names):
    """The formula as sympy, each variable a real symbol (``gamma``, ``I`` or ``beta`` a variable,
    not sympy's function or constant); the strings are this file's own constants."""
    import sympy as sp

    local = {n: sp.Symbol(n, real=True) for n in names}
    local.update(pi=sp.pi, exp=sp.exp, sqrt=sp.sqrt, sin=sp.sin, cos=sp.cos, tanh=sp.tanh, arcsin=sp.asin,
                 ln=sp.log)
    return sp.parse_expr(formula, local_dict=local)


def make_rows(name: str, formula: str, ranges: dict) -> dict:
    """2,000 rows uniform in the ranges (seeded by the name), the exact target, split 1,500 / 500."""
    import sympy as sp

    names = list(ranges)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    lo, hi = np.array([ranges[n] for n in names], dtype=float).T
    X = lo + (hi - lo) * rng.uniform(size=(N_TRAIN + N_TEST, len(names)))
    expr = sympy_formula(formula, names)
    y = sp.lambdify([sp.Symbol(n, real=True) for n in names], expr, "numpy")(*X.T) * np.ones(len(X))
    return dict(names=names, Xtr=X[:N_TRAIN], ytr=y[:N_TRAIN], Xte=X[N_TRAIN:], yte=y[N_TRAIN:])


def r2(pred, y) -> float:
    pred = np.asarray(pred, dtype=float)
    if not np.all(np.isfinite(pred)):
        return float("-inf")
    return float(1.0 - np.mean((y - pred) ** 2) / np.var(y))


def size(expr) -> int:
    """The nodes of a sympy expression: symbols, numbers and operations, one each."""
    import sympy as sp

    return sum(1 for _ in sp.preorder_traversal(expr))


def refitted_nmse(expr, names, rows) -> float:
    """1 - R^2 on the test rows of ``expr`` with each of its floats a free parameter refitted to
    the training rows (Levenberg-Marquardt from the floats' own values); inf when it fails."""
    import sympy as sp
    from scipy.optimize import least_squares

    floats = sorted(expr.atoms(sp.Float), key=str)
    params = sp.symbols(f"p0:{len(floats)}")
    form = expr.xreplace(dict(zip(floats, params)))
    xs = [sp.Symbol(n, real=True) for n in names]
    f = sp.lambdify([*xs, *params], form, "numpy")

    def values(p, X):
        with np.errstate(all="ignore"):
            return np.real(np.asarray(f(*X.T, *p), dtype=complex)) * np.ones(len(X))

    p0 = np.array([float(c) for c in floats])
    try:
        if len(p0):
            fit = least_squares(lambda p: values(p, rows["Xtr"]) - rows["ytr"], p0, method="lm", max_nfev=200 * (len(p0) + 1))
            p0 = fit.x
        nmse = 1.0 - r2(values(p0, rows["Xte"]), rows["yte"])
    except Exception:  # noqa: BLE001 - a form that cannot be refitted is not recovered
        return float("inf")
    return nmse if np.isfinite(nmse) else float("inf")


def scored(rows, pred, expr, seconds, text) -> dict:
    """The numbers of one fit: test R^2, size, exactness (``refitted_nmse``), time, formula."""
    return dict(r2=r2(pred, rows["yte"]), size=size(expr), nmse_refit=refitted_nmse(expr, rows["names"], rows),
                seconds=seconds, formula=text)


# --------------------------------------------------------------------------- the peers (their venv)
def fit_operon(rows) -> dict:
    import sympy as sp
    from pyoperon.sklearn import SymbolicRegressor

    model = SymbolicRegressor(n_threads=1, max_time=OPERON_SECONDS, random_state=0)
    t0 = time.perf_counter()
    model.fit(rows["Xtr"], rows["ytr"])
    seconds = time.perf_counter() - t0
    names = rows["names"]
    text = model.get_model_string(model.model_, precision=17, names=[f"X{j}" for j in range(len(names))])
    local = {f"X{j}": sp.Symbol(n, real=True) for j, n in enumerate(names)}
    expr = sp.parse_expr(text, local_dict=local)
    shown = model.get_model_string(model.model_, precision=4, names=names)
    return scored(rows, model.predict(rows["Xte"]), expr, seconds, shown)


def fit_gplearn(rows) -> dict:
    import sympy as sp
    from gplearn.genetic import SymbolicRegressor

    model = SymbolicRegressor(population_size=1000, generations=20, random_state=0, n_jobs=1,
                              function_set=("add", "sub", "mul", "div", "sqrt", "log", "sin", "cos", "neg", "inv"))
    my, sy = float(np.mean(rows["ytr"])), float(np.std(rows["ytr"]))
    t0 = time.perf_counter()
    model.fit(rows["Xtr"], (rows["ytr"] - my) / sy)
    seconds = time.perf_counter() - t0
    local = {f"X{j}": sp.Symbol(n, real=True) for j, n in enumerate(rows["names"])}
    local.update(add=lambda a, b: a + b, sub=lambda a, b: a - b, mul=lambda a, b: a * b, div=lambda a, b: a / b,
                 sqrt=lambda a: sp.sqrt(sp.Abs(a)), log=lambda a: sp.log(sp.Abs(a)), sin=sp.sin, cos=sp.cos,
                 neg=lambda a: -a, inv=lambda a: 1 / a)
    expr = sp.Float(sy) * sp.parse_expr(str(model._program), local_dict=local) + sp.Float(my)
    return scored(rows, model.predict(rows["Xte"]) * sy + my, expr, seconds, str(expr))


def worker(kind: str, npz: str, out: str) -> None:
    data = np.load(npz, allow_pickle=False)
    rows = {k: data[k] for k in ("Xtr", "ytr", "Xte", "yte")}
    rows["names"] = [str(n) for n in data["names"]]
    load = os.getloadavg()[0]
    result = fit_operon(rows) if kind == "operon" else fit_gplearn(rows)
    # Operon stops at a wall-clock limit: on a loaded machine it evaluates fewer models, so the
    # load average around its fit is kept with the result
    Path(out).write_text(json.dumps({**result, "load": [load, os.getloadavg()[0]]}))


def ensure_peers(venv: Path, packages=PEER_PACKAGES, modules="pyoperon, gplearn, sympy, scipy") -> Path:
    """The peers' venv python, created and filled with ``packages`` on first use (when one of
    ``modules`` does not import)."""
    py = venv / "bin" / "python"
    if not py.exists():
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    if subprocess.run([str(py), "-c", f"import {modules}"], capture_output=True).returncode:
        subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check", *packages],
                       check=True)
    return py


def peer_result(kind: str, name: str, rows: dict, args) -> dict:
    """A peer's fit of one equation, cached by its rows and this file's settings for it."""
    folder = args.peer_venv.parent / "results"
    folder.mkdir(parents=True, exist_ok=True)
    npz = folder / f"{name}.npz"
    np.savez(npz, names=np.array(rows["names"]), **{k: rows[k] for k in ("Xtr", "ytr", "Xte", "yte")})
    source = inspect.getsource(fit_operon if kind == "operon" else fit_gplearn) + inspect.getsource(scored)
    key = hashlib.sha256(npz.read_bytes() + source.encode()).hexdigest()[:16]
    cached = folder / f"{name}-{kind}-{key}.json"
    if cached.exists() and not args.refresh_peers:
        return json.loads(cached.read_text())
    if args.cached_peers:
        return {"missing": "not in the peers' cache"}
    out = folder / f"{name}-{kind}.out.json"
    cmd = [str(ensure_peers(args.peer_venv)), str(Path(__file__).resolve()), "--worker", kind, str(npz), str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=dict(os.environ, **SINGLE_THREAD))
    if proc.returncode != 0:
        return {"error": (proc.stderr.strip().splitlines() or ["(no output)"])[-1]}
    cached.write_text(out.read_text())
    return json.loads(out.read_text())


# --------------------------------------------------------------------------- interp (this process)
def printed_expression(est):
    """The printed formula of a fitted estimator as one sympy expression in the features: the
    intercept plus each weight times its prefactor (if any) times its g with u_k replaced by its
    definition."""
    import sympy as sp
    from interp_symbolic.expression import U, feature_symbols, readable_terms

    xs = feature_symbols(est)
    expr = sp.Float(est.intercept_)
    for term in readable_terms(est):
        expr += sp.Float(term.weight) * term.factor(xs) * term.shape.xreplace({U: term.argument(xs)})
    return expr


def fit_interp(rows) -> dict:
    import pandas as pd
    from interp_symbolic import SymbolicPursuitRegressor
    from interp_symbolic.render import model_formula

    Xtr = pd.DataFrame(rows["Xtr"], columns=rows["names"])
    t0 = time.perf_counter()
    est = SymbolicPursuitRegressor(random_state=0).fit(Xtr, rows["ytr"])
    seconds = time.perf_counter() - t0
    pred = est.predict(pd.DataFrame(rows["Xte"], columns=rows["names"]))
    return scored(rows, pred, printed_expression(est), seconds, model_formula(est).text)


# --------------------------------------------------------------------------- the report
def _cell(res: dict) -> str:
    if "missing" in res:
        return "not run | | | |"
    if "error" in res:
        return "failed | | | |"
    exact = "yes" if res["nmse_refit"] < EXACT_NMSE else ""
    return f"{res['r2']:.6f} | {res['size']} | {res['seconds']:.1f} | {exact} |"


def _median(results, method, key) -> float:
    values = [r[method][key] for r in results.values() if key in r.get(method, {})]
    return float(np.median(values)) if values else float("nan")


def summary(results: dict) -> None:
    print("\n## Medians and counts\n")
    print("| method | median test R^2 | R^2 > 0.999 | exact up to constants | median size | median fit (s) | worst R^2 |")
    print("|---|---|---|---|---|---|---|")
    for method in METHODS:
        done = [r[method] for r in results.values() if "r2" in r.get(method, {})]
        if not done:
            continue
        n = sum("r2" in r.get(method, {}) or "error" in r.get(method, {}) for r in results.values())  # a fit ran
        good = sum(r["r2"] > GOOD_R2 for r in done)
        exact = sum(r["nmse_refit"] < EXACT_NMSE for r in done)
        worst = min(r["r2"] for r in done)
        print(f"| {method} | {_median(results, method, 'r2'):.6f} | {good} / {n} | {exact} / {n} | "
              f"{_median(results, method, 'size'):g} | {_median(results, method, 'seconds'):.1f} | {worst:.4f} |")
    ratios = [r["interp"]["seconds"] / r["operon"]["seconds"] for r in results.values()
              if "seconds" in r.get("interp", {}) and "seconds" in r.get("operon", {})]
    if ratios:
        print(f"\nfit time, interp / Operon per equation: median {np.median(ratios):.3f}, "
              f"worst {max(ratios):.3f} ({len(ratios)} equations)")
    loads = [max(r["operon"]["load"]) for r in results.values() if "load" in r.get("operon", {})]
    if loads:
        print(f"\nload average (1 min) around Operon's fits, the larger of before and after: median "
              f"{np.median(loads):.1f}, highest {max(loads):.1f} (on 2 cores; Operon stops at {OPERON_SECONDS} s "
              f"of wall time, so a loaded machine lets it evaluate fewer models)")
    goals(results)
    by_structure(results)


def by_structure(results: dict) -> None:
    """Per structure (``STRUCTURES``): the equations, how many each method fits to R^2 > 0.999 (of
    those it ran on), and interp's misses with their R^2."""
    print("\n## By structure\n")
    print("| structure | equations | " + " | ".join(f"{m} R^2 > {GOOD_R2}" for m in METHODS) + " | interp misses |")
    print("|---|---|" + "---|" * len(METHODS) + "---|")
    for structure, names in STRUCTURES.items():
        here = [n for n in names if n in results]
        if not here:
            continue
        counts = []
        for method in METHODS:
            ran = [results[n][method] for n in here if "r2" in results[n].get(method, {})]
            counts.append(f"{sum(r['r2'] > GOOD_R2 for r in ran)} / {len(ran)}" if ran else "")
        missed = ", ".join(f"{n} ({results[n]['interp']['r2']:.4f})" for n in here
                           if results[n]["interp"]["r2"] <= GOOD_R2)
        print(f"| {structure} | {len(here)} | {' | '.join(counts)} | {missed} |")


def goals(results: dict) -> None:
    """The goals against Operon in this run: median test R^2 at least its, R^2 > 0.999 on at
    least as many equations, median size at most its, median fit time at most its."""
    both = {n: r for n, r in results.items() if "r2" in r.get("interp", {}) and "r2" in r.get("operon", {})}
    if not both:
        return
    print(f"\n## Goals against Operon ({len(both)} equations fitted by both)\n")
    for what, key, sign in (("median test R^2", "r2", 1), ("median size", "size", -1),
                            ("median fit time (s)", "seconds", -1)):
        # R^2 compared at the 6 decimals printed: two exact fits differ in rounding only
        ours, theirs = (round(float(np.median([r[m][key] for r in both.values()])), 6) for m in ("interp", "operon"))
        print(f"- {what}: interp {ours:.6g}, Operon {theirs:.6g}: {'met' if sign * (ours - theirs) >= 0 else 'missed'}")
    ours, theirs = (sum(r[m]["r2"] > GOOD_R2 for r in both.values()) for m in ("interp", "operon"))
    print(f"- R^2 > {GOOD_R2}: interp {ours}, Operon {theirs}: {'met' if ours >= theirs else 'missed'}")
    missed = [n for n, r in both.items() if r["interp"]["r2"] <= GOOD_R2]
    if missed:
        print(f"- interp at R^2 <= {GOOD_R2}: {', '.join(missed)}")


def chosen_equations(args) -> list:
    """The equations of ``--equations`` (the sample of 32 or all 99), narrowed by ``--only``."""
    pool = SAMPLE if args.equations == "sample" else EQUATIONS
    return [e for e in pool if not args.only or e[0] in args.only.split(",")]


def main(args) -> None:
    chosen = chosen_equations(args)
    print(f"{len(chosen)} Feynman equations, {N_TRAIN} training and {N_TEST} test rows each, no noise.\n")
    print("| equation | law | " + " | ".join(f"{m} R^2 | size | fit (s) | exact" for m in METHODS) + " |")
    print("|---|---|" + "---|---|---|---|" * len(METHODS))
    results, formulas = {}, {}
    for name, formula, ranges in chosen:
        rows = make_rows(name, formula, ranges)
        res = {"interp": fit_interp(rows)}
        if not args.no_peers:
            res.update({kind: peer_result(kind, name, rows, args) for kind in ("operon", "gplearn")})
        results[name] = res
        formulas[name] = {m: r.get("formula", r.get("error", "")) for m, r in res.items()}
        cells = " ".join(_cell(res.get(m, {"missing": ""})) for m in METHODS)
        print(f"| {name} | `{formula}` | {cells}", flush=True)
    summary(results)
    print("\n## Formulas\n")
    for name, by_method in formulas.items():
        print(f"**{name}**\n")
        for method, text in by_method.items():
            print(f"- {method}: `{' ; '.join(text.splitlines())}`")
        print()


def cli() -> None:
    """Parse the command line and run (``--worker``: one peer fit in the peers' venv)."""
    if len(sys.argv) > 1 and sys.argv[1] == "--worker":
        worker(*sys.argv[2:5])
        return
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--equations", choices=("sample", "all"), default="all",
                    help="the sample of 32 equations or all 99 main ones (default)")
    ap.add_argument("--only", default="", help="comma-separated equation names")
    ap.add_argument("--peer-venv", type=Path, default=PEER_VENV)
    ap.add_argument("--refresh-peers", action="store_true")
    ap.add_argument("--cached-peers", action="store_true",
                    help="the peers' results from the cache only: an equation not in it is not run")
    ap.add_argument("--no-peers", action="store_true")
    ap.add_argument("--peers-only", action="store_true", help="fit and cache the peers only")
    ap.add_argument("--peer", choices=("operon", "gplearn"), help="with --peers-only: this peer only")
    args = ap.parse_args()
    if args.peers_only:
        for name, formula, ranges in chosen_equations(args):
            rows = make_rows(name, formula, ranges)
            for kind in [args.peer] if args.peer else ("operon", "gplearn"):
                res = peer_result(kind, name, rows, args)
                print(name, kind, {k: v for k, v in res.items() if k != "formula"}, flush=True)
        return
    main(args)


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from page import run_page

    run_page(cli, "symbolic-feynman", "Symbolic Pursuit against Operon and gplearn on Feynman equations",
             about=__doc__, text=False)
