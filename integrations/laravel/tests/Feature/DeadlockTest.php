<?php

namespace DistLock\Laravel\Tests\Feature;

/**
 * Deadlock detection through the Laravel locks: two artisan processes
 * (dltest:deadlock) each take one name, then block(10) on the other's. The
 * extension refuses the wait that closes the cycle when it is registered:
 * that side gets Laravel's LockTimeoutException at once, the cycle in its
 * message and \DistLock\DeadlockException as previous; the other side is
 * granted once the refused one has let go.
 */
class DeadlockTest extends AppTestCase
{
    public function testCacheLocksTakenInOppositeOrders(): void
    {
        $this->deadlock('mutex');
    }

    public function testWriteLockHoldersWaitingForReadLocksOfEachOther(): void
    {
        $this->deadlock('rw');
    }

    private function deadlock(string $kind): void
    {
        $a = 'dl-deadlock-a-' . bin2hex(random_bytes(4));
        $b = 'dl-deadlock-b-' . bin2hex(random_bytes(4));
        $one = $this->startArtisan(['dltest:deadlock', $a, $b, "--kind=$kind"]);
        $two = $this->startArtisan(['dltest:deadlock', $b, $a, "--kind=$kind"]);
        $results = [];
        foreach ([$one, $two] as $p) {
            [$rc, $out, $err] = $this->finish($p);
            $this->assertSame(0, $rc, "$out\n$err");
            $results[] = json_decode($out, true) ?? $this->fail("not JSON: $out\n$err");
        }
        $outcomes = array_column($results, 'outcome');
        sort($outcomes);
        $this->assertSame(['deadlock', 'granted'], $outcomes, 'one side refused, the other granted: ' . json_encode($results));

        $refused = $results[0]['outcome'] === 'deadlock' ? $results[0] : $results[1];
        $granted = $results[0]['outcome'] === 'deadlock' ? $results[1] : $results[0];
        $this->assertSame('DistLock\DeadlockException', $refused['previous']);
        $this->assertStringContainsString('was not acquired: Deadlock detected', $refused['message']);
        $this->assertStringContainsString($a, $refused['message']);
        $this->assertStringContainsString($b, $refused['message']);
        // Refused when the wait is registered: well under block()'s 10 s.
        $this->assertLessThan(5.0, $refused['seconds'], 'the refused block() took ' . $refused['seconds'] . ' s');
        $this->assertLessThan(10.0, $granted['seconds'], 'granted once the refused side let go');
        $this->assertSame(['deadlock'], $refused['failed_events'], 'one LockAcquireFailed, outcome deadlock');
        $this->assertSame([], $granted['failed_events']);

        $store = \Illuminate\Support\Facades\Cache::store('distlock');
        foreach ([$a, $b] as $name) {
            $this->assertFalse(($kind === 'rw' ? $store->writeLock($name) : $store->lock($name))->isLocked(), "$name released");
        }
    }
}
