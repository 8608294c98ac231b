<?php
/*
 * One workload process of the fault campaign (started by campaign.php):
 *
 *   php [-d extension=distlock.so] worker.php CONFIG.json WORKER_ID
 *
 * Loops until SIGTERM: picks a lock name, acquires it with the library's own
 * blocking API, read-modify-writes the protected resource (read, sleep
 * 5-30 ms, write value + 1, both with the grant's fencing token when there is
 * one), releases. Every operation is one JSON line appended to its own history
 * file (written at once: a SIGKILL loses nothing but the operation in flight):
 *   p worker id, pid, n name, op acquire|read|write|release, s/e hrtime ns
 *   (CLOCK_MONOTONIC, one clock for every process), r result, g grant id,
 *   tok owner token, f fencing token, x/m exception class and message.
 * A state file says whether the worker holds a lease now ("H name") or not
 * ("-"): the nemesis reads it to stop or kill a holder.
 */
declare(strict_types=1);

namespace Nemesis;

require __DIR__ . '/lib/Libs.php';
require __DIR__ . '/lib/Resource.php';

error_reporting(E_ALL & ~E_DEPRECATED & ~E_USER_DEPRECATED);
set_error_handler(function (int $no, string $str, string $file, int $line): bool {
    if (!(error_reporting() & $no)) {
        return false;
    }
    throw new \ErrorException($str, 0, $no, $file, $line);
});

$cfg = json_decode((string) file_get_contents($argv[1]), true, 512, JSON_THROW_ON_ERROR);
$id = (string) $argv[2];
$stop = false;
pcntl_async_signals(true);
pcntl_signal(SIGTERM, function () use (&$stop) { $stop = true; });
mt_srand((int) $cfg['seed'] * 1000 + crc32($id));

$hist = fopen($cfg['dir'] . "/history-$id.jsonl", 'a');
$stateFile = $cfg['dir'] . "/state-$id";
$pid = getmypid();

$rec = function (array $ev) use ($hist, $id, $pid): void {
    fwrite($hist, json_encode(['p' => $id, 'pid' => $pid] + $ev, JSON_UNESCAPED_SLASHES | JSON_INVALID_UTF8_SUBSTITUTE) . "\n");
};
$exc = fn (\Throwable $e): array => ['x' => get_class($e), 'm' => substr($e->getMessage(), 0, 200)]
    + ($e->getPrevious() ? ['why' => substr(get_class($e->getPrevious()) . ': ' . $e->getPrevious()->getMessage(), 0, 200)] : []);
$state = function (string $s) use ($stateFile): void { @file_put_contents($stateFile, $s); };
$state('-');

$lib = null;
while ($lib === null && !$stop) {
    $t = hrtime(true);
    try {
        $lib = make_lib($cfg['lib'], $cfg['topo']);
    } catch (\Throwable $e) {
        $rec(['op' => 'start', 's' => $t, 'e' => hrtime(true), 'r' => 'error'] + $exc($e));
        usleep(200000);
    }
}
$res = new Resource((int) $cfg['resource_port']);
$names = $cfg['names'];
$n = 0;

while (!$stop) {
    $name = $names[mt_rand(0, count($names) - 1)];
    $grant = $id . '#' . (++$n);
    $s = hrtime(true);
    try {
        $h = $lib->acquire($name);
    } catch (\Throwable $e) {
        $rec(['op' => 'acquire', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => 'error'] + $exc($e));
        try { $lib->reset(); } catch (\Throwable) {}
        usleep(mt_rand(10000, 50000));
        continue;
    }
    if ($h === null) {
        $rec(['op' => 'acquire', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => 'timeout']);
        continue;
    }
    $e = hrtime(true);
    $state("H $name");
    $fence = $lib->fence($h);
    $rec(['op' => 'acquire', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => $e, 'r' => 'ok',
          'tok' => $lib->token($h), 'f' => $fence]);

    // read-modify-write of the resource, with the grant's fencing token
    $s = hrtime(true);
    [$r, $val, $seq] = $res->access($name, 'read', $fence, $grant);
    $rec(['op' => 'read', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => $r, 'v' => $val, 'q' => $seq, 'f' => $fence]);
    if ($r === 'ok') {
        usleep(mt_rand(5000, 30000));
        if (mt_rand(0, 3) === 0) {    // a refresh in one cycle of four, where the library has one
            $s = hrtime(true);
            try {
                $ok = $lib->refresh($h);
                if ($ok !== null) {
                    $rec(['op' => 'refresh', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => $ok ? 'ok' : 'lost']);
                }
            } catch (\Throwable $e) {
                $rec(['op' => 'refresh', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => 'error'] + $exc($e));
            }
        }
        $s = hrtime(true);
        [$r, $val2, $seq] = $res->access($name, 'write', $fence, $grant, $val, (string) ((int) $val + 1));
        $rec(['op' => 'write', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => $r, 'v' => $val2, 'q' => $seq, 'f' => $fence]);
    }

    $s = hrtime(true);
    $state('-');
    try {
        $ok = $lib->release($h);
        $rec(['op' => 'release', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => $ok ? 'ok' : 'lost']);
    } catch (\Throwable $e) {
        $rec(['op' => 'release', 'n' => $name, 'g' => $grant, 's' => $s, 'e' => hrtime(true), 'r' => 'error'] + $exc($e));
        try { $lib->reset(); } catch (\Throwable) {}
    }
    unset($h);
}
$rec(['op' => 'exit', 's' => hrtime(true), 'e' => hrtime(true), 'r' => 'ok', 'lost_signals' => $lib?->lostSignals() ?? 0]);
