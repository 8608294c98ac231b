<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry\Tests;

/**
 * Lock names are left out by default (they often carry user ids or order
 * numbers), written on spans with lock_names 'spans', and on metrics too
 * with 'all'.
 */
final class LockNamesTest extends TelemetryTestCase
{
    public function testNamesAreLeftOutByDefault(): void
    {
        $this->instrument();
        $name = self::lockName('checkout:alice@example.com');
        $this->client()->lock($name, 5, 1)->release();

        self::assertCount(2, $this->spans->getSpans());
        $dump = serialize(array_map(static fn ($s) => [$s->getName(), $s->getAttributes()->toArray(), $s->getStatus()->getDescription()],
            $this->spans->getSpans()));
        self::assertStringNotContainsString('alice', $dump);
        $m = $this->collect();
        foreach ($m as $metric) {
            foreach ($metric->data->dataPoints as $point) {
                self::assertStringNotContainsString('alice', serialize($point->attributes->toArray()), $metric->name);
            }
        }
        self::assertArrayHasKey('distlock.lock.acquisitions', $m);
    }

    public function testNamesOnSpansOnly(): void
    {
        $this->instrument(['lock_names' => 'spans']);
        $name = self::lockName('order:42');
        $this->client()->lock($name, 5, 1)->release();

        self::assertSame($name, self::attributes($this->onlySpan('distlock.acquire'))['distlock.lock.name']);
        self::assertSame($name, self::attributes($this->onlySpan('distlock.release'))['distlock.lock.name']);
        foreach (self::points($this->collect(), 'distlock.lock.acquisitions') as [$attributes]) {
            self::assertArrayNotHasKey('distlock.lock.name', $attributes);
        }
    }

    public function testNamesOnSpansAndMetrics(): void
    {
        $this->instrument(['lock_names' => 'all']);
        $locks = $this->client();
        $a = self::lockName('a');
        $b = self::lockName('b');
        $locks->lock($a, 5, 1)->release();
        $locks->lock($b, 5, 1)->release();
        $locks->lock($a, 5, 1)->release();

        $m = $this->collect();
        self::assertSame(2, self::point($m, 'distlock.lock.acquisitions', ['distlock.lock.name' => $a])->value);
        self::assertSame(1, self::point($m, 'distlock.lock.acquisitions', ['distlock.lock.name' => $b])->value);
        self::assertSame(2, self::point($m, 'distlock.lock.hold.duration', ['distlock.lock.name' => $a])->count);
        self::assertSame($a, self::attributes($this->spansNamed('distlock.acquire')[0])['distlock.lock.name']);
    }
}
