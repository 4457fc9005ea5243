-- A sub-entity: masks a row with a parameter mask (its --PARAM block is not the top's: not read).
library ieee;
use ieee.std_logic_1164.all;
use work.rowsel_pkg.all;

entity rowsel_mask is
  port (
    row  : in  std_logic_vector(WIDTH-1 downto 0);
--PARAM
    mask : in  std_logic_vector(WIDTH-1 downto 0);
--PARAM
    y    : out std_logic_vector(WIDTH-1 downto 0)
  );
end rowsel_mask;

architecture rtl of rowsel_mask is
begin
  y <= row and mask;
end rtl;
