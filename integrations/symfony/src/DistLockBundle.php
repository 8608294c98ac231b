<?php

declare(strict_types=1);

namespace DistLock\Symfony;

use DistLock\Symfony\DependencyInjection\ProfilerPass;
use Symfony\Component\DependencyInjection\Compiler\PassConfig;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\HttpKernel\Bundle\Bundle;

/**
 * The optional Symfony bundle of distlock/symfony-lock: the Web Profiler's
 * "Locks" panel (DataCollector\DistLockDataCollector), wired only where the
 * profiler is enabled (dev, test). The stores do not need it.
 *
 *     // config/bundles.php
 *     DistLock\Symfony\DistLockBundle::class => ['dev' => true, 'test' => true],
 *
 * Needs symfony/http-kernel (5.4 to 7.x) and, for the panel,
 * symfony/web-profiler-bundle.
 */
final class DistLockBundle extends Bundle
{
    public function build(ContainerBuilder $container): void
    {
        parent::build($container);
        // Before FrameworkBundle's ProfilerPass (priority 0), which collects the data_collector tags.
        $container->addCompilerPass(new ProfilerPass(), PassConfig::TYPE_BEFORE_OPTIMIZATION, 64);
    }

    /** The package's root (its templates/ folder holds @DistLock/Collector/distlock.html.twig). */
    public function getPath(): string
    {
        return \dirname(__DIR__);
    }
}
