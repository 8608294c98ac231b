<?php
/* One lock and release of ?name= (default "cycle"); prints the worker's pid. */
require __DIR__ . '/lib.inc';
$lock = fpm_locks()->lock(fpm_param('name', 'cycle'), 5.0, 10.0);
echo $lock->release() ? 'released' : 'lost', ' ', getmypid(), "\n";
