"""democratiza: programas de democratización accionaria (Ley 226 de 1995)."""
