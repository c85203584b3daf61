#!/usr/bin/env bash
# After the Primera Fase of examples/primera-etapa.sh (same database): the brokers' payments,
# the settlement (unpaid awards are resolved and return), and a Segunda Fase by Dutch auction
# over the shares left: two brokers' order books (some orders refused with their reason, one
# batch resent), the clearing with a pro-rata at the margin, and the stage's files.
set -euo pipefail
cd "$(dirname "$0")/.."
D=.venv/bin/democratiza
S=examples/segunda-etapa
OUT=${1:-salidas}
export DEMOCRATIZA_DB="sqlite:///$OUT/primera-etapa.db"
C=central-primera-fase
E=central-segunda-fase

echo "--- Pagos de la Primera Fase y liquidación: lo no pagado vuelve"
$D pago importar $C examples/primera-etapa/pagos.csv --lote PAGOS-001
$D pago liquidar $C --fecha-enajenacion 2018-03-20
echo "--- Segunda Fase: subasta holandesa sobre lo que quedó"
$D etapa crear $E --oferta $C --terminos $S/terminos.yaml
$D etapa abrir $E
$D etapa ordenes $E $S/ordenes-casa-de-bolsa.csv --comisionista "Casa de Bolsa" --lote CB-O1 --salida "$OUT"
$D etapa ordenes $E $S/ordenes-valores-bancolombia.csv --comisionista "Valores Bancolombia" --lote VB-O1 --salida "$OUT"
echo "--- El mismo lote de órdenes enviado otra vez no crea nada:"
$D etapa ordenes $E $S/ordenes-casa-de-bolsa.csv --comisionista "Casa de Bolsa" --lote CB-O1 --salida "$OUT"
$D etapa cerrar $E
$D etapa libro $E
$D etapa adjudicar $E
$D etapa publicar $E
$D etapa exportar $E --salida "$OUT"
$D etapa ver $E
