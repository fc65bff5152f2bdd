package dev.ddp4j.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test (use it instead of {@code @Test}) that needs an NVIDIA GPU. It carries the {@code gpu} tag
 * (so {@code -Pno-gpu-tests} leaves it out) and is skipped, with the reason in the report, where
 * CUDA is not usable. (A copy of collectives' annotation, which ships no test jar.)
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Test
@Tag("gpu")
@ExtendWith(GpuCondition.class)
public @interface GpuTest {}
