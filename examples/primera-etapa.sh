#!/usr/bin/env bash
# A complete Primera Etapa on the embedded SQLite default, with the bundled sample data:
# an offer, refused at opening with 9 % of credit lines and opened once a second line makes
# 10 %, four brokers' batches (one with bad rows, refused whole, then sent right; the last
# after an interruption that adjusts the price),
# a resent batch (stored once), a withdrawal, an oversubscribed adjudication and the reports.
set -euo pipefail
cd "$(dirname "$0")/.."
D=.venv/bin/democratiza
S=examples/primera-etapa
OUT=${1:-salidas}
DB="sqlite:///$OUT/primera-etapa.db"
mkdir -p "$OUT"
rm -f "$OUT/primera-etapa.db"
export DEMOCRATIZA_DB="$DB"
C=central-primera-fase

$D oferta crear $C --programa central-seguros-vida --oferta $S/oferta.yaml
echo "--- La Primera Fase no abre sin líneas de crédito que financien el 10 % de su valor"
echo "    (Ley 226 art. 11 num. 3): 40.000.000 acciones × \$ 1.000, \$ 4.000.000.000 de crédito."
# Tasas iguales al interés bancario corriente de abril-junio de 2017, vigente el día del otorgamiento.
LINEA=(--plazo-meses 60 --gracia-meses 12 --tasa-ea 22.33 --fecha-otorgamiento 2017-06-15)
$D credito registrar $C --entidad "Banco Ejemplo" --monto-disponible 3.600.000.000 "${LINEA[@]}"
$D oferta abrir $C || true
$D credito registrar $C --entidad "Cooperativa Ejemplo" --monto-disponible 400.000.000 "${LINEA[@]}"
$D credito lineas $C
$D oferta abrir $C
$D lote importar $C $S/lote-1-casa-de-bolsa.csv --comisionista "Casa de Bolsa" --lote CB-001
$D lote importar $C $S/lote-2-acciones-y-valores.csv --comisionista "Acciones y Valores" --lote AV-001
$D lote importar $C $S/lote-3-valores-bancolombia.csv --comisionista "Valores Bancolombia" --lote VB-001
echo "--- Una interrupción con precio ajustado (Ley 226 art. 11 num. 2): lo que se radique después"
echo "    se evalúa y se paga a \$ 990; las aceptaciones anteriores conservan su precio."
$D oferta interrumpir $C --motivo "interrupción de la oferta anunciada en el aviso" \
    --precio-nuevo 990 --vigente-desde 2018-02-20 \
    --fundamento "Ley 226 de 1995 art. 11 num. 2 (ejemplo)" \
    --aceptaciones-anteriores conservan \
    --fundamento-anteriores "se evaluaron y respondieron al precio del aviso (ejemplo)"
echo "--- Un lote con filas malas se rechaza completo:"
$D lote importar $C $S/lote-4-credicorp-capital-con-errores.csv --comisionista "Credicorp Capital" --lote CC-001 || true
$D lote importar $C $S/lote-4-credicorp-capital.csv --comisionista "Credicorp Capital" --lote CC-002
echo "--- El mismo lote enviado otra vez no crea nada:"
$D lote importar $C $S/lote-1-casa-de-bolsa.csv --comisionista "Casa de Bolsa" --lote CB-001
$D lote retirar $C CLYF-000001-0000001 --motivo "el aceptante desistió antes del cierre" --quien "Casa de Bolsa"
$D oferta cerrar $C
# Fechas de negocio coherentes con el plazo del ejemplo (cierre el 2018-02-26): no las del reloj.
$D oferta adjudicar $C --fecha 2018-03-01
$D oferta publicar $C --fecha 2018-03-02 --plazo-pago 2018-03-16
$D oferta exportar $C --salida "$OUT"
$D oferta ver $C
