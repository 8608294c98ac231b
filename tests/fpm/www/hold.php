<?php
/* For the pool whose workers pm.max_requests recycles: takes the lock ?name=
 * for 60 s under the watchdog and ends the request holding it (request end
 * releases it); prints the worker's pid. */
require __DIR__ . '/lib.inc';
$GLOBALS['held'] = fpm_locks(['watchdog' => true])->lock(fpm_param('name'), 60.0, 5.0);
echo getmypid(), "\n";
