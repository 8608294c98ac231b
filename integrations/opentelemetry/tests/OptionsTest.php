<?php

declare(strict_types=1);

namespace DistLock\OpenTelemetry\Tests;

use DistLock\OpenTelemetry\DistLockInstrumentation;
use DistLock\OpenTelemetry\Options;
use DistLock\OpenTelemetry\ServerAttributes;
use PHPUnit\Framework\TestCase;

/** The options' checks and the server string's parsing (no server needed). */
final class OptionsTest extends TestCase
{
    public function testDefaults(): void
    {
        $o = Options::fromArray([]);
        self::assertFalse($o->spanLockNames);
        self::assertFalse($o->metricLockNames);
        self::assertTrue($o->traces);
        self::assertTrue($o->metrics);
        $all = Options::fromArray(['lock_names' => 'all']);
        self::assertTrue($all->spanLockNames && $all->metricLockNames);
        $spans = Options::fromArray(['lock_names' => 'spans']);
        self::assertTrue($spans->spanLockNames);
        self::assertFalse($spans->metricLockNames);
    }

    public function testUnknownOptionIsAValueErrorNamingIt(): void
    {
        $this->expectException(\ValueError::class);
        $this->expectExceptionMessage('"lock_name"');
        DistLockInstrumentation::register(null, null, ['lock_name' => 'all']);
    }

    public function testBadValues(): void
    {
        foreach ([[['lock_names' => 'yes'], \ValueError::class, 'lock_names'], [['lock_names' => true], \TypeError::class, 'lock_names'],
            [['traces' => 1], \TypeError::class, 'traces'], [['metrics' => 'no'], \TypeError::class, 'metrics']] as [$options, $class, $key]) {
            try {
                Options::fromArray($options);
                self::fail('accepted ' . json_encode($options));
            } catch (\Throwable $e) {
                self::assertInstanceOf($class, $e);
                self::assertStringContainsString("\"$key\"", $e->getMessage());
            }
        }
    }

    public function testEnvironment(): void
    {
        putenv('OTEL_PHP_DISTLOCK_LOCK_NAMES=SPANS');
        putenv('OTEL_PHP_DISTLOCK_METRICS=false');
        try {
            $o = Options::fromEnvironment();
            self::assertTrue($o->spanLockNames);
            self::assertFalse($o->metricLockNames);
            self::assertTrue($o->traces);
            self::assertFalse($o->metrics);
        } finally {
            putenv('OTEL_PHP_DISTLOCK_LOCK_NAMES');
            putenv('OTEL_PHP_DISTLOCK_METRICS');
        }
    }

    /** A value the variables do not know: one E_USER_WARNING each, and the default kept (the app must not stop). */
    public function testEnvironmentTyposWarnAndKeepTheDefaults(): void
    {
        putenv('OTEL_PHP_DISTLOCK_LOCK_NAMES=everything');
        putenv('OTEL_PHP_DISTLOCK_TRACES=yes');
        $warnings = [];
        set_error_handler(static function (int $level, string $message) use (&$warnings): bool {
            $warnings[] = [$level, $message];

            return true;
        });
        try {
            $o = Options::fromEnvironment();
        } finally {
            restore_error_handler();
            putenv('OTEL_PHP_DISTLOCK_LOCK_NAMES');
            putenv('OTEL_PHP_DISTLOCK_TRACES');
        }
        self::assertFalse($o->spanLockNames);
        self::assertTrue($o->traces);
        self::assertSame([E_USER_WARNING, E_USER_WARNING], array_column($warnings, 0));
        self::assertStringContainsString('OTEL_PHP_DISTLOCK_LOCK_NAMES', $warnings[0][1]);
        self::assertStringContainsString('OTEL_PHP_DISTLOCK_TRACES', $warnings[1][1]);
    }

    public function testServerStrings(): void
    {
        $s = new ServerAttributes();
        self::assertSame(['server.address' => '127.0.0.1', 'server.port' => 6379], $s->of('127.0.0.1:6379'));
        self::assertSame(['server.address' => '::1', 'server.port' => 7000], $s->of('[::1]:7000'));
        self::assertSame(['server.address' => '/run/redis.sock'], $s->of('unix:/run/redis.sock'));
        self::assertSame(['server.address' => 'redis.internal'], $s->of('redis.internal'));
        self::assertSame([], $s->of(null));
    }
}
