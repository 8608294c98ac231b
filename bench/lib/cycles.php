<?php
/*
 * The lock cycles bench/regress.php and bench/profile.php measure, one
 * closure per cycle, connected and warmed: distlock, the hand-written
 * phpredis lock (SET NX PX, then the owner-checked delete by EVALSHA), the
 * two-PING floor, and "same" (phpredis sending distlock's own commands).
 */
namespace Bench;

require_once __DIR__ . '/release-script.php';

/** The hand-written lock's release: the owner-checked delete (the recipe). */
const RECIPE_RELEASE = 'if redis.call("get", KEYS[1]) == ARGV[1] then return redis.call("del", KEYS[1]) else return 0 end';

/** One cycle's closure for this implementation and section, connected and warmed. */
function cycle(string $impl, string $section, int $port, string $key): \Closure
{
    if ($impl === 'distlock') {
        $d = new \DistLock("redis://127.0.0.1:$port", ['prefix' => '', 'timeout' => 10]);
        $d->tryLock("$key:warm:" . getmypid(), 5)->release();
        if ($section === 'scoped') {
            return function () use ($d, $key) { $l = $d->tryLock($key, 5); };   // released as $l goes
        }
        if ($section === 'handover') {
            return function () use ($d, $key) { $l = $d->lock($key, 5, 10); return fn () => $l->release(); };
        }
        return function () use ($d, $key) { $d->tryLock($key, 5)->release(); };
    }
    $r = new \Redis();
    $r->connect('127.0.0.1', $port, 2.0);
    if ($impl === 'floor') {
        return function () use ($r) { $r->ping(); $r->ping(); };
    }
    if ($impl === 'same') return same_work($r, $key);
    $sha = $r->script('load', RECIPE_RELEASE);
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
        if (!$r->set($key, $token, ['nx', 'px' => 5000])) throw new \RuntimeException('taken');
        $release($token);
    };
}

/** distlock's uncontended cycle, command for command, sent by phpredis (IMPL same). */
function same_work(\Redis $r, string $key): \Closure
{
    $q = "$key{{$key}}:waiters";
    $acquire = function () use ($r, $key) {
        $token = bin2hex(random_bytes(16));
        if ($r->rawCommand('SET', $key, $token, 'NX', 'PX', '5000', 'GET') !== false) throw new \RuntimeException('taken');
        return $token;
    };
    foreach (['DELEX', 'DELIFEQ'] as $native) {
        $info = $r->rawCommand('COMMAND', 'INFO', $native);
        if (is_array($info) && !empty($info[0])) {
            $args = $native === 'DELEX' ? fn ($t) => [$key, 'IFEQ', $t] : fn ($t) => [$key, $t];
            return function () use ($r, $acquire, $native, $args, $q) {
                $token = $acquire();
                $r->multi(\Redis::PIPELINE);
                $r->rawCommand($native, ...$args($token));
                $r->exists($q);
                if ($r->exec()[0] !== 1) throw new \RuntimeException('not released');
            };
        }
    }
    $sha = $r->script('load', release_script()[0]);
    $w = "$key{{$key}}:wake";
    return function () use ($r, $acquire, $sha, $key, $w, $q) {
        $token = $acquire();
        if ($r->evalSha($sha, [$key, $w, $q, $token, '2000'], 3) !== 1) throw new \RuntimeException('not released');
    };
}

