<?php
/*
 * bench/regress.php — one measurement of bench/regress: CYCLES cycles of one
 * implementation in one section, in this process; prints the µs per cycle.
 *
 *   php [-d extension=.../distlock.so] bench/regress.php IMPL SECTION PORT CYCLES
 *
 * IMPL: distlock (the extension this php loaded: head's or base's), phpredis
 * (the hand-written lock: SET NX PX, then the owner-checked release script by
 * EVALSHA), floor (two PINGs through phpredis: two round trips, no lock),
 * same (uncontended only: phpredis sending distlock's own commands, taken
 * from MONITOR: SET K tok NX PX ttl GET, then on a server with DELEX
 * "DELEX K IFEQ tok" and "EXISTS Q" in one write, on one with DELIFEQ
 * "DELIFEQ K tok" and "EXISTS Q", elsewhere distlock's release script by
 * EVALSHA with its keys K W Q and arguments tok, 2000; the script's text is
 * the file named by DISTLOCK_RELEASE_LUA, which bench/regress writes from
 * src/core/lease/dl_scripts.h). The same server work through a PHP client:
 * head / same is what distlock's client costs against phpredis's.
 * SECTION: uncontended (acquire + release, explicit), scoped (acquire, and
 * the release of a handle going out of scope: distlock's deferred release;
 * the recipe has no scope, so its explicit release), handover (two processes
 * taking one name in turns: the median µs from one's release to the other's
 * grant; distlock waits in lock(), the recipe retries SET NX every 1 ms).
 * PORT: the server (or the delay proxy in front of it) on 127.0.0.1.
 */
[$impl, $section, $port, $cycles] = array_slice($argv, 1) + [null, null, null, null];
$port = (int)$port;
$cycles = (int)$cycles;
if (!in_array($impl, ['distlock', 'phpredis', 'floor', 'same'], true) || !in_array($section, ['uncontended', 'scoped', 'handover'], true)
    || ($impl === 'same' && $section !== 'uncontended') || $port <= 0 || $cycles <= 0) {
    fwrite(STDERR, "usage: php bench/regress.php distlock|phpredis|floor|same uncontended|scoped|handover PORT CYCLES\n");
    exit(2);
}
const RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';
$key = "regress:$section:" . getmypid();

/** One cycle's closure for this implementation and section, connected and warmed. */
function cycle(string $impl, string $section, int $port, string $key): Closure
{
    if ($impl === 'distlock') {
        $d = new DistLock("redis://127.0.0.1:$port", ['prefix' => '', 'timeout' => 10]);
        $d->tryLock("$key:warm:" . getmypid(), 5)->release();
        if ($section === 'scoped') {
            return function () use ($d, $key) { $l = $d->tryLock($key, 5); };   // released as $l goes
        }
        if ($section === 'handover') {
            return function () use ($d, $key) { $l = $d->lock($key, 5, 10); return fn () => $l->release(); };
        }
        return function () use ($d, $key) { $d->tryLock($key, 5)->release(); };
    }
    $r = new Redis();
    $r->connect('127.0.0.1', $port, 2.0);
    if ($impl === 'floor') {
        return function () use ($r) { $r->ping(); $r->ping(); };
    }
    if ($impl === 'same') return same_work($r, $key);
    $sha = $r->script('load', RELEASE);
    $release = fn (string $token) => $r->evalSha($sha, [$key, $token], 1);
    if ($section === 'handover') {
        return function () use ($r, $key, $release) {
            $token = bin2hex(random_bytes(16));
            while (!$r->set($key, $token, ['nx', 'px' => 5000])) usleep(1000);   // the recipe's retry
            return fn () => $release($token);
        };
    }
    return function () use ($r, $key, $release) {
        $token = bin2hex(random_bytes(16));
        if (!$r->set($key, $token, ['nx', 'px' => 5000])) throw new RuntimeException('taken');
        $release($token);
    };
}

/** distlock's uncontended cycle, command for command, sent by phpredis (IMPL same). */
function same_work(Redis $r, string $key): Closure
{
    $q = "$key{{$key}}:waiters";
    $acquire = function () use ($r, $key) {
        $token = bin2hex(random_bytes(16));
        if ($r->rawCommand('SET', $key, $token, 'NX', 'PX', '5000', 'GET') !== false) throw new RuntimeException('taken');
        return $token;
    };
    foreach (['DELEX', 'DELIFEQ'] as $native) {
        $info = $r->rawCommand('COMMAND', 'INFO', $native);
        if (is_array($info) && !empty($info[0])) {
            $args = $native === 'DELEX' ? fn ($t) => [$key, 'IFEQ', $t] : fn ($t) => [$key, $t];
            return function () use ($r, $acquire, $native, $args, $q) {
                $token = $acquire();
                $r->multi(Redis::PIPELINE);
                $r->rawCommand($native, ...$args($token));
                $r->exists($q);
                if ($r->exec()[0] !== 1) throw new RuntimeException('not released');
            };
        }
    }
    $lua = file_get_contents((string)getenv('DISTLOCK_RELEASE_LUA'));
    if (!$lua) throw new RuntimeException('DISTLOCK_RELEASE_LUA names no script');
    $sha = $r->script('load', $lua);
    $w = "$key{{$key}}:wake";
    return function () use ($r, $acquire, $sha, $key, $w, $q) {
        $token = $acquire();
        if ($r->evalSha($sha, [$key, $w, $q, $token, '2000'], 3) !== 1) throw new RuntimeException('not released');
    };
}

if ($section === 'handover') {
    // Two children take one name in turns. Each notes, just before it
    // releases, its pid and the time (in a key, by a connection of its own,
    // while it holds the lock); the other, granted, reads it: the hand-over
    // latency runs from that release to this grant (CLOCK_MONOTONIC is one
    // clock for every process). The median of the grants that came to a
    // waiter: asked before the other's release.
    $key = 'regress:handover';
    $per = intdiv($cycles, 2);
    $out = tempnam(sys_get_temp_dir(), 'regress');
    $pids = [];
    for ($c = 0; $c < 2; $c++) {
        $pid = pcntl_fork();
        if ($pid === 0) {
            $take = cycle($impl, $section, $port, $key);   // acquires; returns the release
            $note = new Redis();
            $note->connect('127.0.0.1', $port, 2.0);
            $lat = [];
            for ($i = 0; $i < $per; $i++) {
                $asked = hrtime(true);
                $release = $take();
                $got = hrtime(true);
                $prev = $note->get("$key:released");
                if (is_string($prev)) {
                    [$who, $at] = explode(':', $prev);
                    // a hand-over: the other released while this one waited
                    if ((int)$who !== getmypid() && (int)$at > $asked) $lat[] = ($got - (int)$at) / 1e3;
                }
                $note->set("$key:released", getmypid() . ':' . hrtime(true));
                $release();
                usleep(2000);                              // longer than the recipe's 1 ms retry: the other takes it
            }
            file_put_contents($out, implode("\n", $lat) . "\n", FILE_APPEND | LOCK_EX);
            exit(0);
        }
        $pids[] = $pid;
    }
    foreach ($pids as $pid) pcntl_waitpid($pid, $st);
    $lat = array_map('floatval', array_filter(explode("\n", (string)file_get_contents($out)), 'strlen'));
    unlink($out);
    sort($lat);
    printf("%.2f\n", $lat ? $lat[intdiv(count($lat), 2)] : -1);
    exit(0);
}
$run = cycle($impl, $section, $port, $key);
for ($i = 0; $i < 200; $i++) $run();   // warm: the scripts cached, the code paths hot
$t0 = hrtime(true);
for ($i = 0; $i < $cycles; $i++) $run();
printf("%.2f\n", (hrtime(true) - $t0) / 1e3 / $cycles);
