<?php
/*
 * tests/fallbacks/wallclock.php CLOCKFILE — the client's wall clock jumps
 * (an NTP step, a suspended VM) while distlock holds and waits: leases and
 * waits run on the monotonic clock, so neither may notice (RELIABILITY.md
 * item 7). Run by tests/fallbacks/run.sh under libfaketime:
 *   LD_PRELOAD=libfaketime.so.1 FAKETIME_TIMESTAMP_FILE=CLOCKFILE
 *   FAKETIME_NO_CACHE=1 FAKETIME_DONT_FAKE_MONOTONIC=1
 * Writing "-3600" to CLOCKFILE moves this process's wall clock (time(),
 * gettimeofday, CLOCK_REALTIME) an hour back at once; the monotonic clock
 * (hrtime) is left alone. Prints "ok <check>" or "not ok <check>" per check.
 * libfaketime fakes what the process reads, not the kernel's own timers: a
 * wait the kernel times on CLOCK_REALTIME would not be caught here (the code
 * has none: dl_platform's waits are relative or on CLOCK_MONOTONIC).
 */
require __DIR__ . '/../phpt/inc/lifecycle.inc';

$clock = $argv[1] ?? exit("usage: wallclock.php CLOCKFILE\n");
$prefix = 'fallbacks_wallclock:';
$failed = 0;
function check(string $what, bool $ok): void
{
    global $failed;
    echo $ok ? 'ok' : 'not ok', " $what\n";
    $failed += $ok ? 0 : 1;
}
function jump(string $clock, int $offset_s): void
{
    file_put_contents($clock, sprintf('%+d', $offset_s));
}
/* The wall clock's offset from the monotonic one, in seconds since $base. */
function wall_offset(array $base): float
{
    return (microtime(true) - $base[0]) - (hrtime(true) - $base[1]) / 1e9;
}
raw_redis_del_prefix($prefix);
jump($clock, 0);
$base = [microtime(true), hrtime(true)];

jump($clock, -3600);
check('the wall clock jumped back an hour in this process (libfaketime works)', abs(wall_offset($base) + 3600) < 60);

// A 0.6 s lease under the watchdog (renewed every 0.2 s) while the wall clock
// goes back an hour, forward two, back two.
$wd = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true]);
function cpu_s(): float
{
    $r = getrusage();   // every thread of the process: the watchdog's too
    return $r['ru_utime.tv_sec'] + $r['ru_stime.tv_sec'] + ($r['ru_utime.tv_usec'] + $r['ru_stime.tv_usec']) / 1e6;
}
$s0 = $wd->stats();
$l = $wd->lock('kept', 0.6);
$cpu0 = cpu_s();
usleep(1000000);
jump($clock, 3600);
usleep(1000000);
jump($clock, -3600);
usleep(800000);
$cpu = cpu_s() - $cpu0;
[$holds, $pttl] = lc_key_state($prefix . 'kept', $l->token());
check('the watchdog kept the lease across the jumps (key holds the token, PTTL in (0, 600])', $holds && $pttl > 0 && $pttl <= 600);
$s1 = $wd->stats();
// 2.8 s at one renewal per 0.2 s: about 14; at least 6 even on a slow machine
check('renewals >= 6 (' . ($s1['renewals'] - $s0['renewals']) . ')', $s1['renewals'] - $s0['renewals'] >= 6);
check('nothing lost', $s1['lost'] === $s0['lost'] && $l->isAcquired());
// A sleep whose deadline a jump had moved into the past would return at once,
// over and over: the thread would spin. 2.8 s of holding costs milliseconds.
check(sprintf('the watchdog slept between renewals (%.3f s of CPU in 2.8 s)', $cpu), $cpu < 1.0);

// A wait for a held lock, with the wall clock jumped an hour forward by
// another process in the middle of it: it ends at its 1 s timeout, by the
// monotonic clock.
$waiter = new DistLock(test_uri(), ['prefix' => $prefix]);
$child = pcntl_fork();
if ($child === 0) {
    usleep(300000);
    jump($clock, 3600 * 2);
    exit(0);
}
$t = hrtime(true);
try {
    $waiter->lock('kept', 5, 1.0);
    check('the wait timed out', false);
} catch (DistLock\LockTimeoutException $e) {
    $el = (hrtime(true) - $t) / 1e9;
    check(sprintf('the 1 s wait ended after 1 s by the monotonic clock (%.3f s)', $el), $el >= 1.0 && $el < 3.0);
}
pcntl_waitpid($child, $st);
check('the wall clock was two hours ahead at the end', abs(wall_offset($base) - 7200) < 60);

// A release ends the renewals (the watchdog is woken to drop the entry).
check('release', $l->release());
check('released key gone', raw_redis('EXISTS', $prefix . 'kept') === 0);
// A renewal the watchdog had sent before the release may still be answered
// (and counted) after it: counted from when that one has landed.
usleep(300000);
$rt = $wd->stats()['renewal_round_trips'];
usleep(700000);
check('no renewal after the release', $wd->stats()['renewal_round_trips'] === $rt);
jump($clock, 0);
raw_redis_del_prefix($prefix);
exit($failed ? 1 : 0);
