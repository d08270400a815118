"""The appliance: wires the engine, the reader and the hardware into the device on the bar."""
