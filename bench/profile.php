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
 * "uncontended" cycles, closures included, so that the two benches measure
 * the same thing. CYCLES may be 0: the warm-up and the connection alone (the
 * base bench/profile subtracts). WARM defaults to 200, as in bench/regress.php.
 * Prints nothing: the measurement is the tool's.
 */
[$impl, $port, $cycles, $warm] = array_slice($argv, 1) + [null, null, null, '200'];
$port = (int)$port;
$cycles = (int)$cycles;
$warm = (int)$warm;
if (!in_array($impl, ['distlock', 'phpredis', 'floor'], true) || $port <= 0 || $cycles < 0 || $warm < 0) {
    fwrite(STDERR, "usage: php bench/profile.php distlock|phpredis|floor PORT CYCLES [WARM]\n");
    exit(2);
}
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
$key = "regress:uncontended:" . getmypid();

/** bench/regress.php's cycle() for the section "uncontended". */
function cycle(string $impl, int $port, string $key): Closure
{
    if ($impl === 'distlock') {
        $d = new DistLock("redis://127.0.0.1:$port", ['prefix' => '', 'timeout' => 10]);
        $d->tryLock("$key:warm:" . getmypid(), 5)->release();
        return function () use ($d, $key) { $d->tryLock($key, 5)->release(); };
    }
    $r = new Redis();
    $r->connect('127.0.0.1', $port, 2.0);
    if ($impl === 'floor') {
        return function () use ($r) { $r->ping(); $r->ping(); };
    }
    $sha = $r->script('load', RELEASE);
    $release = fn (string $token) => $r->evalSha($sha, [$key, $token], 1);
    return function () use ($r, $key, $release) {
        $token = bin2hex(random_bytes(16));
        if (!$r->set($key, $token, ['nx', 'px' => 5000])) throw new RuntimeException('taken');
        $release($token);
    };
}

$run = cycle($impl, $port, $key);
for ($i = 0; $i < $warm; $i++) $run();
for ($i = 0; $i < $cycles; $i++) $run();
