<?php
/* Takes the lock ?name= with a ?ttl= lease under the watchdog, writes the
 * worker's pid to a marker file, then sleeps for a minute: tests/fpm/run.sh
 * kills the worker with SIGKILL while it holds the lease. */
require __DIR__ . '/lib.inc';
$name = fpm_param('name');
$ttl = (float)fpm_param('ttl', '2');
$lock = fpm_locks(['watchdog' => true])->lock($name, $ttl, 5.0);
file_put_contents(fpm_data("$name.pid"), (string)getmypid());
sleep(60);
echo "not killed\n";
