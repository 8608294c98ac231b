<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry\Tests;

/** Metrics of real lock operations on the test server. */
final class MetricsTest extends TelemetryTestCase
{
    /**
     * Three uncontended acquires and releases (held 50 ms each), one that
     * waited for another process, one conflict: the histograms and counters
     * say so, with small attribute sets.
     */
    public function testHistogramsAndCounters(): void
    {
        $this->instrument();
        $locks = $this->client();
        for ($i = 0; $i < 3; $i++) {
            $lock = $locks->lock(self::lockName('job'), 5, 1);
            usleep(50_000);
            $lock->release();
        }
        $name = self::lockName('contended');
        $holder = $this->holdElsewhere($name, 0.3);
        try {
            self::assertNull($locks->tryLock($name, 5));
            $locks->lock($name, 5, 5)->release();
        } finally {
            proc_close($holder);
        }

        $m = $this->collect();
        $server = ['server.address' => '127.0.0.1', 'server.port' => $this->port];
        $acquired = ['distlock.lock.kind' => 'mutex', 'distlock.outcome' => 'acquired'] + $server;

        self::assertSame('s', $m['distlock.lock.wait.duration']->unit);
        self::assertSame('s', $m['distlock.lock.hold.duration']->unit);
        self::assertSame('s', $m['db.client.operation.duration']->unit);

        $wait = self::point($m, 'distlock.lock.wait.duration', $acquired);
        self::assertSame(4, $wait->count);
        self::assertGreaterThan(0.1, $wait->sum, 'the contended acquire waited about 0.3 s');
        self::assertLessThan(5.0, $wait->sum);
        self::assertSame([0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 90], $wait->explicitBounds);
        self::assertSame(3, $wait->bucketCounts[0], 'three waits of 0 s in the first bucket');

        $hold = self::point($m, 'distlock.lock.hold.duration', ['distlock.outcome' => 'released'] + $server);
        self::assertSame(4, $hold->count);
        self::assertGreaterThan(0.15, $hold->sum, 'three holds of 50 ms at least');
        self::assertLessThan(10.0, $hold->sum);

        self::assertSame(4, self::point($m, 'distlock.lock.acquisitions', $acquired)->value);
        self::assertSame(1, self::point($m, 'distlock.lock.acquisitions', ['distlock.outcome' => 'conflict'])->value);

        $op = self::point($m, 'db.client.operation.duration', ['db.operation.name' => 'distlock.acquire', 'db.system.name' => 'redis'] + $server);
        self::assertSame(5, $op->count);
        self::assertSame(4, self::point($m, 'db.client.operation.duration', ['db.operation.name' => 'distlock.release'])->count);

        // Small attribute sets: kind, outcome, server; no name, no token.
        foreach (['distlock.lock.wait.duration', 'distlock.lock.hold.duration', 'distlock.lock.acquisitions'] as $metric) {
            foreach (self::points($m, $metric) as [$attributes]) {
                self::assertSame(['distlock.lock.kind', 'distlock.outcome', 'server.address', 'server.port'],
                    self::sortedKeys($attributes), $metric);
            }
        }
        self::assertSame([], isset($m['distlock.lock.lost']) ? self::points($m, 'distlock.lock.lost') : [], 'no lease was lost');
    }

    /**
     * A lease found lost by its release: the lost counter; no hold time (when
     * the lease ended is not known, so the event has none).
     */
    public function testLostLease(): void
    {
        $this->instrument();
        $lock = $this->client()->lock(self::lockName('short'), 0.15, 1);
        usleep(400_000);
        self::assertFalse($lock->release());

        $m = $this->collect();
        $lost = self::point($m, 'distlock.lock.lost', ['distlock.operation' => 'release', 'distlock.lock.kind' => 'mutex']);
        self::assertSame(1, $lost->value);
        self::assertSame([], isset($m['distlock.lock.hold.duration']) ? self::points($m, 'distlock.lock.hold.duration') : []);
        self::assertSame(1, self::point($m, 'db.client.operation.duration', ['db.operation.name' => 'distlock.release', 'error.type' => 'lost'])->count);
    }

    /** A timed-out wait: counted under outcome timeout, its wait in the histogram. */
    public function testTimeout(): void
    {
        $this->instrument();
        $name = self::lockName('busy');
        $holder = $this->holdElsewhere($name, 1.0);
        try {
            $this->client()->lock($name, 5, 0.2);
            self::fail('lock() returned while another process held the lock');
        } catch (\DistLock\LockTimeoutException) {
        } finally {
            proc_close($holder);
        }
        $m = $this->collect();
        self::assertSame(1, self::point($m, 'distlock.lock.acquisitions', ['distlock.outcome' => 'timeout'])->value);
        $wait = self::point($m, 'distlock.lock.wait.duration', ['distlock.outcome' => 'timeout']);
        self::assertSame(1, $wait->count);
        self::assertGreaterThan(0.1, $wait->sum);
    }

    /** metrics => false: spans only. */
    public function testMetricsOff(): void
    {
        $this->instrument(['metrics' => false]);
        $this->client()->lock(self::lockName('t'), 5, 1)->release();
        self::assertCount(1, $this->spansNamed('distlock.acquire'));
        self::assertSame([], array_keys(array_filter($this->collect(), static fn ($k) => str_starts_with($k, 'distlock.'), ARRAY_FILTER_USE_KEY)));
    }

    /** @param array<string, mixed> $a @return list<string> */
    private static function sortedKeys(array $a): array
    {
        $k = array_keys($a);
        sort($k);

        return $k;
    }
}
