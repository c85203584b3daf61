#!/usr/bin/env bash
# After examples/primera-etapa.sh and segunda-etapa.sh (same database): three designs of the
# Primera Fase compared on the sample offer's own acceptances, and the public packages of the
# published stages built and verified from the packages alone.
set -euo pipefail
cd "$(dirname "$0")/.."
D=.venv/bin/democratiza
OUT=${1:-salidas}
export DEMOCRATIZA_DB="sqlite:///$OUT/primera-etapa.db"

echo "--- Tres diseños de la Primera Fase sobre las aceptaciones de la oferta de ejemplo"
$D simular examples/simulacion/disenos-central.yaml --oferta central-primera-fase \
    --salida "$OUT/simulacion"
echo "--- Paquetes públicos de las etapas publicadas, y su verificación desde el paquete solo"
$D paquete oferta central-primera-fase --salida "$OUT/paquete-primera-fase"
$D verificar "$OUT/paquete-primera-fase"
$D paquete etapa central-segunda-fase --salida "$OUT/paquete-segunda-fase"
$D verificar "$OUT/paquete-segunda-fase.zip"
