<?php
/*
 * bench/profile.php — the loop bench/profile runs under callgrind and strace:
 * WARM cycles, then CYCLES cycles of one implementation, in this process.
 *
 *   php -n -d extension=igbinary -d extension=redis [-d extension=.../distlock.so] \
 *       bench/profile.php IMPL PORT CYCLES [WARM]
 *
 * IMPL: distlock (tryLock() + release(), explicit), phpredis (the hand-written
 * lock: SET NX PX with a 128-bit token, then the owner-checked release script
 * by EVALSHA), floor (two PINGs through phpredis). These are bench/regress.php's
 * "uncontended" cycles (bench/lib/cycles.php), so that the two benches measure
 * the same thing. CYCLES may be 0: the warm-up and the connection alone (the
 * base bench/profile subtracts). WARM defaults to 200, as in bench/regress.php.
 * Prints nothing: the measurement is the tool's.
 */
require __DIR__ . '/lib/cycles.php';

use function Bench\cycle;

[$impl, $port, $cycles, $warm] = array_slice($argv, 1) + [null, null, null, '200'];
$port = (int)$port;
$cycles = (int)$cycles;
$warm = (int)$warm;
if (!in_array($impl, ['distlock', 'phpredis', 'floor'], true) || $port <= 0 || $cycles < 0 || $warm < 0) {
    fwrite(STDERR, "usage: php bench/profile.php distlock|phpredis|floor PORT CYCLES [WARM]\n");
    exit(2);
}
$key = "regress:uncontended:" . getmypid();

$run = cycle($impl, 'uncontended', $port, $key);
for ($i = 0; $i < $warm; $i++) $run();
for ($i = 0; $i < $cycles; $i++) $run();
