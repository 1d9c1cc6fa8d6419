"""Builders shared by the e-graph tests."""

from __future__ import annotations

from slotsat.core import ir

D = ir.DType.INDEX


def C(v: int, d: ir.DType = D) -> ir.ConstInt:
    return ir.ConstInt(v, d)


def var(name: str, d: ir.DType = D) -> ir.Var:
    return ir.Var(name, ir.ScalarType(d))


def add(a: ir.Expr, b: ir.Expr) -> ir.Add:
    return ir.Add(a, b, ir.expr_dtype(a))


def sub(a: ir.Expr, b: ir.Expr) -> ir.Sub:
    return ir.Sub(a, b, ir.expr_dtype(a))


def mul(a: ir.Expr, b: ir.Expr) -> ir.Mul:
    return ir.Mul(a, b, ir.expr_dtype(a))


def fdiv(a: ir.Expr, b: ir.Expr) -> ir.FloorDiv:
    return ir.FloorDiv(a, b, ir.expr_dtype(a))


def fmod(a: ir.Expr, b: ir.Expr) -> ir.FloorMod:
    return ir.FloorMod(a, b, ir.expr_dtype(a))
