#!/usr/bin/env bash
# After the Primera Fase of examples/primera-etapa.sh (same database): the brokers' payments,
# the settlement (unpaid awards are resolved and return), and a Segunda Fase by Dutch auction
# over the shares left: two brokers' order books (some orders refused with their reason, one
# batch resent), the clearing with a pro-rata at the margin, its payments and settlement
# (one order unpaid and one half paid: their shares are resolved and return; only paid
# shares go to the registry), and the stage's files; then a
# sale within the two years (a fine case whose base is the Segunda Fase price), an
# ineffective acquisition, and a fine statement as CSV and PDF.
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
echo "--- Pagos de la Segunda Fase y liquidación: lo no pagado se resuelve y vuelve"
$D etapa pago importar $E $S/pagos.csv --lote PAGOS-E1
$D etapa pago liquidar $E --fecha-enajenacion 2018-04-27
$D etapa exportar $E --salida "$OUT"
$D etapa ver $E
echo "--- Después de la venta: un adjudicatario vende antes de dos años (caso de multa; la base"
echo "    toma el precio de la Segunda Fase) y otra adquisición resulta ineficaz"
# Central cuenta los tramos desde la fecha de la adjudicación (2018-03-01 en este ejemplo):
# una venta 40 días después cae en el tramo del 100 %.
SOON=2018-04-10
$D tenencia evento $C CLYF-000001-0000002 --tipo venta --fecha "$SOON" --acciones 1000 \
    --contraprestacion 1050 --detalle "venta en bolsa informada por el depósito"
$D tenencia ineficaz $C CLYF-000001-0000003 --fecha "$SOON" \
    --motivo "se estableció que actuó por cuenta de un tercero (beneficiario real)"
$D tenencia ver $C CLYF-000001-0000003
echo "--- El estado de cuenta de una multa (ejemplo de GEB con sus series de 2018-2019), en CSV y PDF:"
$D multa calcular -p geb-2017 --fecha-referencia 2018-04-02 --fecha-incumplimiento 2019-01-15 \
    --acciones 10000 --hasta 2019-02-20 --precio-adquisicion 2018 --contraprestacion 2500 \
    --pago 2019-02-10=1000000 --salida "$OUT/multa-ejemplo"
