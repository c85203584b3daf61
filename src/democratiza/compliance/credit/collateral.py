"""The shares bought with the credit as its collateral, valued at the fixed price (GEB
art. 7.4): how far they cover the loan's balance."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from democratiza.compliance.credit.lines import CreditError
from democratiza.money import exact_percent, group, pesos


@dataclass(frozen=True)
class Coverage:
    shares: int
    fixed_price: int  # centavos per share
    balance: int  # centavos
    required: Fraction  # the coverage the lender asks for (1 = 100 %)

    @property
    def value(self) -> int:
        """The shares at the fixed price (art. 7.4), in centavos."""
        return self.shares * self.fixed_price

    @property
    def ratio(self) -> Fraction:
        return Fraction(self.value, self.balance)

    @property
    def covered(self) -> bool:
        return self.ratio >= self.required

    @property
    def text(self) -> str:
        return (
            f"{group(self.shares)} acciones × {pesos(self.fixed_price)} (precio fijo) = "
            f"{pesos(self.value)} frente a un saldo de {pesos(self.balance)}: cobertura del "
            f"{exact_percent(self.ratio)} {'≥' if self.covered else '<'} "
            f"{exact_percent(self.required)} exigido; "
            + ("la garantía cubre el saldo." if self.covered else "la garantía no cubre el saldo.")
        )


def collateral_coverage(
    shares: int,
    fixed_price_centavos: int,
    loan_balance_centavos: int,
    *,
    required: Fraction = Fraction(1),
) -> Coverage:
    """How far the pledged shares, at the fixed price (art. 7.4), cover the loan's balance."""
    if shares < 0:
        raise CreditError("El número de acciones en garantía no puede ser negativo.")
    if fixed_price_centavos <= 0:
        raise CreditError("El precio fijo debe ser positivo.")
    if loan_balance_centavos <= 0:
        raise CreditError("La cobertura se calcula sobre un saldo del crédito positivo.")
    if required <= 0:
        raise CreditError("La cobertura exigida debe ser positiva.")
    return Coverage(shares, fixed_price_centavos, loan_balance_centavos, required)
