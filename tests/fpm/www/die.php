<?php
/* Takes the lock ?name= for 30 s, writes a marker file, and ends the request
 * the way ?how= says, with the lease still held: "fatal" (memory exhausted, an
 * engine bailout: no destructor runs), "exit" (exit() in the middle), or
 * "timeout" (max_execution_time of 1 s runs out in a busy loop). The lease
 * must be gone at request end all the same. */
require __DIR__ . '/lib.inc';
$name = fpm_param('name');
$how = fpm_param('how');
$GLOBALS['held'] = fpm_locks()->lock($name, 30.0, 5.0);
file_put_contents(fpm_data("$name.held"), getmypid() . ' ' . $GLOBALS['held']->token());
// Nothing is printed before a fatal error: php-fpm then answers 500.
switch ($how) {
    case 'fatal':
        ini_set('memory_limit', '16M');
        $big = [];
        while (true) {
            $big[] = str_repeat('x', 1 << 20);
        }
    case 'exit':
        exit("exit while holding the lock\n");
    case 'timeout':
        set_time_limit(1);
        while (true) {
            $x = hash('sha256', (string)mt_rand());
        }
}
http_response_code(400);
echo "bad how\n";
